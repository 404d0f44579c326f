-- Silent: the waitpoint's key is unique per environment; when it expires it
-- is parked in inactive_idempotency_key so that a new waitpoint can take
-- it, and parked keys repeat by design.
CREATE TABLE waitpoints (
    id text PRIMARY KEY,
    environment_id text NOT NULL,
    status text NOT NULL,
    idempotency_key text NOT NULL,
    inactive_idempotency_key text,
    idempotency_key_expires_at timestamp,
    CONSTRAINT waitpoints_environment_id_idempotency_key_key UNIQUE (environment_id, idempotency_key)
);

-- Positive: a second key of another name is no copy of the gated one.
CREATE TABLE transfers (
    id text PRIMARY KEY,
    environment_id text NOT NULL,
    idempotency_key text NOT NULL,
    dedupe_hash text, -- want: key-without-unique "transfers.dedupe_hash"
    CONSTRAINT transfers_environment_id_idempotency_key_key UNIQUE (environment_id, idempotency_key)
);

-- Positive: the key its name contains has a hole (NULL environment), so
-- nothing gates it and the copy is not excused.
CREATE TABLE holds (
    id text PRIMARY KEY,
    environment_id text,
    idempotency_key text NOT NULL,
    previous_idempotency_key text, -- want: key-without-unique "holds.previous_idempotency_key"
    CONSTRAINT holds_environment_id_idempotency_key_key UNIQUE (environment_id, idempotency_key) -- want: nullable-key "environment_id may be NULL"
);
