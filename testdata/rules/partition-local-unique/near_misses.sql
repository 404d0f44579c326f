-- Silent: the parent has the unique index; the partitions hold its copies.
CREATE TABLE readings (
    device_id bigint NOT NULL,
    reading_id text NOT NULL,
    taken_on date NOT NULL
) PARTITION BY RANGE (taken_on);
CREATE UNIQUE INDEX readings_key ON readings (device_id, reading_id, taken_on);
CREATE TABLE readings_2026 PARTITION OF readings FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');

-- Silent: partition indexes built first and adopted by the parent's index.
CREATE TABLE logins (
    user_id bigint NOT NULL,
    at_day date NOT NULL
) PARTITION BY RANGE (at_day);
CREATE TABLE logins_2026 PARTITION OF logins FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE UNIQUE INDEX logins_2026_key ON logins_2026 (user_id, at_day);
CREATE UNIQUE INDEX logins_key ON logins (user_id, at_day);

-- Silent: the parent's key is a subset of the partition's, which is stricter.
CREATE TABLE sessions (
    session_id text NOT NULL,
    started_on date NOT NULL,
    device text NOT NULL
) PARTITION BY RANGE (started_on);
CREATE UNIQUE INDEX sessions_key ON sessions (session_id, started_on);
CREATE TABLE sessions_2026 PARTITION OF sessions FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE UNIQUE INDEX sessions_2026_device ON sessions_2026 (session_id, started_on, device);

-- Silent: an ordinary table's unique index.
CREATE TABLE plain (k text NOT NULL UNIQUE);
