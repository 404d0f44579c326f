-- pg-version: 15
-- Silent: PostgreSQL 15 knows NULLS NOT DISTINCT.
CREATE TABLE events (
    organization_id bigint NOT NULL,
    external_id text
);
CREATE UNIQUE INDEX events_dedupe ON events (organization_id, external_id) NULLS NOT DISTINCT;
