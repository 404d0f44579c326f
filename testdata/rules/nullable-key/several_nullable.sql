-- Several nullable key parts in one finding.
CREATE TABLE bookings (
    venue_id bigint NOT NULL,
    slot_id bigint,
    guest_id bigint,
    table_no int
);
CREATE UNIQUE INDEX bookings_slot ON bookings (venue_id, slot_id, guest_id, table_no); -- want: nullable-key "slot_id, guest_id and table_no may be NULL, so two bookings with the same venue_id and no slot_id \(or no guest_id, or no table_no\) are both accepted"
CREATE UNIQUE INDEX bookings_pair ON bookings (slot_id, guest_id); -- want: nullable-key "slot_id and guest_id may be NULL, so two bookings with no slot_id \(or no guest_id\) are both accepted"
