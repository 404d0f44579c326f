-- Silent: names that mention keys but types that cannot hold one. A list of
-- header names (text[]), a jsonb list, a boolean switch, times and settings.
CREATE TABLE sources (
    id character varying(26) PRIMARY KEY,
    idempotency_keys text[]
);
CREATE TABLE subscription_migrations (
    id uuid PRIMARY KEY,
    dedup_pending_queries jsonb DEFAULT '[]'::jsonb NOT NULL,
    dedup_key_list jsonb
);
CREATE TABLE organizations (
    id uuid PRIMARY KEY,
    clickhouse_deduplication_enabled boolean DEFAULT false NOT NULL,
    dedup_id boolean
);
CREATE TABLE api_calls (
    id bigint PRIMARY KEY,
    idempotency_key_expires_at timestamptz,
    idempotency_key timestamptz,
    "idempotencyKeyTtlMs" bigint,
    "idempotencyKeyExpression" text
);
CREATE TYPE dedup_mode AS ENUM ('off', 'on');
CREATE TABLE settings (
    id bigint PRIMARY KEY,
    dedup_key dedup_mode NOT NULL,
    dedup_hash_algorithm text
);
CREATE INDEX settings_dedup ON settings (dedup_key, dedup_hash_algorithm);

-- Positive: key-like types, through a domain too, and camelCase names.
CREATE DOMAIN dedupe_ref AS character varying(64) NOT NULL;
CREATE TABLE inbound_events (
    id bigint PRIMARY KEY,
    dedupe_id dedupe_ref, -- want: key-without-unique "inbound_events.dedupe_id"
    payload_dedup_hash bytea NOT NULL, -- want: key-without-unique "inbound_events.payload_dedup_hash"
    "idempotencyKey" character varying(255) -- want: key-without-unique "inbound_events.\"idempotencyKey\""
);
