-- Silent: the good example, all four points, with its claim state.
CREATE TABLE idempotency_keys (
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    status text NOT NULL DEFAULT 'started',
    request_fingerprint text NOT NULL,
    locked_at timestamptz,
    response_code integer,
    response_body jsonb,
    PRIMARY KEY (account_id, idempotency_key)
);

-- Silent: the same points under other common names.
CREATE TABLE idempotent_requests (
    idempotency_token uuid PRIMARY KEY,
    recovery_state text NOT NULL,
    request_hash bytea NOT NULL,
    expires_at timestamptz NOT NULL,
    http_status smallint,
    response_json jsonb
);

-- Silent for the shape: payments dedupes its own rows with the key and has
-- a business status; it is not a store of responses.
CREATE TABLE payments (
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    status text NOT NULL,
    amount bigint NOT NULL,
    UNIQUE (account_id, idempotency_key)
);

-- Silent: a key table written in the same transaction as the resource it
-- points at. No state column, so nothing is ever left in progress.
CREATE TABLE idempotency_records (
    id uuid PRIMARY KEY,
    idempotency_key bytea NOT NULL,
    resource_type character varying,
    resource_id uuid,
    created_at timestamp(6) without time zone NOT NULL
);
CREATE UNIQUE INDEX index_idempotency_records_on_idempotency_key ON idempotency_records (idempotency_key);

-- Silent: a key table with an expiry and the id of what claimed it, but no
-- state column; keyed per tenant.
CREATE TABLE v1_idempotency_key (
    tenant_id uuid NOT NULL,
    key text NOT NULL,
    expires_at timestamptz NOT NULL,
    claimed_by_external_id uuid,
    state_changed_at timestamptz,
    PRIMARY KEY (tenant_id, expires_at, key)
);
CREATE UNIQUE INDEX v1_idempotency_key_unique_tenant_key ON v1_idempotency_key (tenant_id, key);

-- Silent for the shape, loud for the key: the first version of a key store,
-- a plain index and a body, no state.
CREATE TABLE request_dedup (
    dedup_key text NOT NULL, -- want: key-without-unique "request_dedup.dedup_key"
    response_body jsonb
);
CREATE INDEX request_dedup_key ON request_dedup (dedup_key);

-- Silent: a configuration table that lists which headers carry idempotency
-- keys (text[]), beside a status and a custom response.
CREATE TABLE sources (
    id character varying(26) PRIMARY KEY,
    name text NOT NULL,
    status text NOT NULL,
    forward_headers text[],
    idempotency_keys text[],
    custom_response_body text
);

-- Silent: settings about idempotency keys are not keys (an expression, a
-- time to live, a method), even beside a status and a checksum.
CREATE TYPE idempotency_method AS ENUM ('TTL', 'STATUS');
CREATE TABLE "WorkflowVersion" (
    id uuid PRIMARY KEY,
    checksum text NOT NULL,
    status text,
    "idempotencyKeyExpression" text,
    "idempotencyKeyTtlMs" bigint,
    "idempotencyMethod" idempotency_method
);
