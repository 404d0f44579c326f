-- Already part of snapshot 10: the runner does not apply it to a new database.
ALTER TABLE accounts ADD COLUMN created_ts BIGINT NOT NULL DEFAULT 0;
