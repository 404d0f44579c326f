-- The public API accepts an Idempotency-Key header. The first version of the
-- key store keeps the key and the response body, so that a retry gets the
-- first answer back.
CREATE TABLE idempotency_keys (
    account_id       bigint NOT NULL REFERENCES accounts (id),
    idempotency_key  text NOT NULL,
    response_body    jsonb,
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, idempotency_key)
);
