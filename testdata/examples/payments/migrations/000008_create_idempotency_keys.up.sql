-- The public API accepts an Idempotency-Key header. The first version of the
-- key store claims the key with a status ('started', then 'done') and keeps
-- the response body, so that a retry gets the first answer back.
CREATE TABLE idempotency_keys (
    account_id       bigint NOT NULL REFERENCES accounts (id),
    idempotency_key  text NOT NULL,
    status           text NOT NULL DEFAULT 'started',
    response_body    jsonb,
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, idempotency_key)
);
