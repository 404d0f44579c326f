-- Silent: the good example, all four points.
CREATE TABLE idempotency_keys (
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    request_fingerprint text NOT NULL,
    locked_at timestamptz,
    response_code integer,
    response_body jsonb,
    PRIMARY KEY (account_id, idempotency_key)
);

-- Silent: the same points under other common names.
CREATE TABLE idempotent_requests (
    idempotency_token uuid PRIMARY KEY,
    request_hash bytea NOT NULL,
    expires_at timestamptz NOT NULL,
    http_status smallint,
    response_json jsonb
);

-- Silent for the shape: payments dedupes its own rows with the key; it is
-- not a store of responses.
CREATE TABLE payments (
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    amount bigint NOT NULL,
    UNIQUE (account_id, idempotency_key)
);
