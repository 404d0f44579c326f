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
-- everything.
CREATE TABLE walkins (
    venue_id bigint NOT NULL,
    slot_id bigint,
    guest_id bigint
);
CREATE UNIQUE INDEX walkins_key ON walkins (venue_id, slot_id, guest_id); -- want: optional-unique "slot_id and guest_id may be NULL"
CREATE UNIQUE INDEX walkins_no_slot ON walkins (venue_id, guest_id) WHERE slot_id IS NULL; -- want: optional-unique "guest_id may be NULL, so among rows where slot_id IS NULL"
CREATE UNIQUE INDEX walkins_no_guest ON walkins (venue_id, slot_id) WHERE guest_id IS NULL; -- want: optional-unique "slot_id may be NULL, so among rows where guest_id IS NULL"
