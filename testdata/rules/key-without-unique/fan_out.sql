-- Silent: events keep every delivery of a key and flag the repeats; the
-- key is on many rows by design.
CREATE SCHEMA convoy;
CREATE TABLE convoy.events (
    id character varying(26) PRIMARY KEY,
    idempotency_key text,
    is_duplicate_event boolean DEFAULT false
);
CREATE INDEX idx_idempotency_key_key ON convoy.events (idempotency_key);

-- Silent: each delivery carries its event's key; the event is judged.
CREATE TABLE convoy.event_deliveries (
    id character varying(26) PRIMARY KEY,
    event_id character varying(26) NOT NULL REFERENCES convoy.events (id),
    status text NOT NULL,
    idempotency_key text
);
CREATE INDEX event_deliveries_key ON convoy.event_deliveries (idempotency_key);

-- Silent: runs started by one trigger share its key, which a key table
-- claims; nothing looks the runs up by key.
CREATE SCHEMA engine;
CREATE TABLE engine.v1_idempotency_key (
    tenant_id uuid NOT NULL,
    key text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, expires_at, key)
);
CREATE UNIQUE INDEX v1_idempotency_key_unique_tenant_key ON engine.v1_idempotency_key (tenant_id, key);
CREATE TABLE engine.v1_task (
    id bigint PRIMARY KEY,
    tenant_id uuid NOT NULL,
    idempotency_key text
);

-- Positive beside them: in the same schema, a table that looks its key up
-- (check, then insert) is still a hole.
CREATE TABLE engine.v1_webhook_call (
    id bigint PRIMARY KEY,
    idempotency_key text NOT NULL -- want: key-without-unique "engine.v1_webhook_call.idempotency_key"
);
CREATE INDEX v1_webhook_call_key ON engine.v1_webhook_call (idempotency_key);

-- Positive: a key copied from a parent that does not have it is not a
-- fan-out, and a duplicate flag must be a boolean.
CREATE TABLE convoy.endpoints (
    id character varying(26) PRIMARY KEY,
    url text NOT NULL
);
CREATE TABLE convoy.endpoint_calls (
    id character varying(26) PRIMARY KEY,
    endpoint_id character varying(26) NOT NULL REFERENCES convoy.endpoints (id),
    duplicate_of text,
    dedup_key text NOT NULL -- want: key-without-unique "convoy.endpoint_calls.dedup_key"
);
