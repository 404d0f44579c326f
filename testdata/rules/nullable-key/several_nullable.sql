-- Several nullable key parts in one finding.
CREATE TABLE bookings (
    venue_id bigint NOT NULL,
    slot_id bigint,
    guest_id bigint,
    table_no int
);
CREATE UNIQUE INDEX bookings_slot ON bookings (venue_id, slot_id, guest_id, table_no); -- want: nullable-key "slot_id and guest_id may be NULL, so two bookings with the same venue_id and table_no and no slot_id \(or no guest_id\) are both accepted" optional-unique "table_no may be NULL, so bookings without table_no are not deduplicated within venue_id, slot_id and guest_id"
CREATE UNIQUE INDEX bookings_pair ON bookings (slot_id, guest_id); -- want: optional-unique "slot_id and guest_id may be NULL, so bookings without slot_id \(or without guest_id\) are not deduplicated; intended"
