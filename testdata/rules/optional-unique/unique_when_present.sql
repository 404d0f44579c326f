-- Silent: the author said "unique when present" in the predicate.
CREATE TABLE devices (
    id bigint PRIMARY KEY,
    serial text
);
CREATE UNIQUE INDEX devices_serial ON devices (serial) WHERE serial IS NOT NULL;
