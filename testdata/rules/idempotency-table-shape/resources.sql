-- Silent for the shape: resources that carry their own optional key, a
-- status of their own, the key's expiry and a lease on a worker. A run is
-- the response to its trigger; its key is gated by its unique index, which
-- optional-unique reads.
CREATE TABLE environments (id text PRIMARY KEY);
CREATE TABLE task_runs (
    id text PRIMARY KEY,
    environment_id text NOT NULL,
    task_identifier text NOT NULL,
    status text NOT NULL,
    idempotency_key text,
    idempotency_key_expires_at timestamp,
    locked_at timestamp,
    locked_by_id text
);
CREATE UNIQUE INDEX task_runs_environment_id_task_identifier_idempotency_key_key ON task_runs (environment_id, task_identifier, idempotency_key); -- want: optional-unique/info "idempotency_key may be NULL"

-- Silent: a waitpoint always has a key (one is generated when none is
-- given), unique per environment, and a status saying whether it completed.
CREATE TABLE waitpoints (
    id text PRIMARY KEY,
    environment_id text NOT NULL,
    status text NOT NULL,
    idempotency_key text NOT NULL,
    idempotency_key_expires_at timestamp,
    CONSTRAINT waitpoints_environment_id_idempotency_key_key UNIQUE (environment_id, idempotency_key)
);

-- Positive: the rows are the keys (the key is the primary key), with a
-- claim state and a lease, and nothing stored to answer a retry with.
CREATE TABLE request_claims ( -- want: idempotency-table-shape "^request_claims stores idempotency keys \(idempotency_key\) and their state \(status\) but lacks what the pattern needs:\n- no stored response.*\n- no request fingerprint.*$"
    idempotency_key text PRIMARY KEY,
    status text NOT NULL,
    locked_at timestamptz
);

-- Positive: a resource that also stores the response it gave is answering
-- retries from its rows: a key store, without a lease or a fingerprint.
CREATE TABLE refunds ( -- want: idempotency-table-shape "^refunds stores idempotency keys \(idempotency_key\) and their state \(status\) but lacks what the pattern needs:\n- no lease or expiry.*\n- no request fingerprint.*$"
    id text PRIMARY KEY,
    status text NOT NULL,
    idempotency_key text NOT NULL,
    response_code integer,
    response_body jsonb,
    CONSTRAINT refunds_idempotency_key_key UNIQUE (idempotency_key)
);
