-- Several nullable key parts in one finding, beside one that is only
-- unique when present. A booking without a start or a table is still
-- identified by the other of the two (both values); a walk-in without a
-- guest keeps only values that may be missing too, within its venue.
CREATE TABLE venues (id bigint PRIMARY KEY);
CREATE TABLE bookings (
    venue_id bigint NOT NULL,
    slot_id bigint,
    starts_at timestamptz,
    guest_id bigint,
    table_no int
);
CREATE UNIQUE INDEX bookings_slot ON bookings (venue_id, starts_at, guest_id, table_no); -- want: nullable-key "starts_at and table_no may be NULL, so two bookings with the same venue_id and guest_id and no starts_at \(or no table_no\) are both accepted" optional-unique "guest_id may be NULL, so bookings without guest_id are not deduplicated within venue_id, starts_at and table_no"
CREATE UNIQUE INDEX bookings_pair ON bookings (slot_id, guest_id); -- want: optional-unique "slot_id and guest_id may be NULL, so bookings without slot_id \(or without guest_id\) are not deduplicated; intended"
