-- Silent: a full split of an index with two nullable key parts. Each split
-- index's own hole is covered by the one for both parts NULL.
CREATE TABLE venues (id bigint PRIMARY KEY);
CREATE TABLE reservations (
    venue_id bigint NOT NULL,
    slot_id bigint,
    guest_id bigint
);
CREATE UNIQUE INDEX reservations_key ON reservations (venue_id, slot_id, guest_id);
CREATE UNIQUE INDEX reservations_no_slot ON reservations (venue_id, guest_id) WHERE slot_id IS NULL;
CREATE UNIQUE INDEX reservations_no_guest ON reservations (venue_id, slot_id) WHERE guest_id IS NULL;
CREATE UNIQUE INDEX reservations_neither ON reservations (venue_id) WHERE slot_id IS NULL AND guest_id IS NULL;

-- Without the index for both NULL, rows with neither slot nor guest escape
-- everything. Re-judged (issue 25): slot_id and guest_id name no table
-- here, so each is a value of the row's own, and each is left beside the
-- other's NULL rows: a hole through both (it read as unique when present
-- through both). The split indexes' own parts, alone beside the venue,
-- are unique when present.
CREATE TABLE walkins (
    venue_id bigint NOT NULL,
    slot_id bigint,
    guest_id bigint
);
CREATE UNIQUE INDEX walkins_key ON walkins (venue_id, slot_id, guest_id); -- want: nullable-key/warning "slot_id and guest_id may be NULL, so two walkins with the same venue_id and no slot_id \(or no guest_id\) are both accepted" fix "^rebuild walkins_key NULLS NOT DISTINCT"
CREATE UNIQUE INDEX walkins_no_slot ON walkins (venue_id, guest_id) WHERE slot_id IS NULL; -- want: optional-unique "guest_id may be NULL, so among rows where slot_id IS NULL"
CREATE UNIQUE INDEX walkins_no_guest ON walkins (venue_id, slot_id) WHERE guest_id IS NULL; -- want: optional-unique "slot_id may be NULL, so among rows where guest_id IS NULL"
