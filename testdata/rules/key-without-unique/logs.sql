-- Silent: a log partitioned by time. Every unique index of a partitioned
-- table must hold its partition key, here a timestamp, so a key can only be
-- unique per period; each delivery of a webhook is logged, redeliveries
-- included, and the run it starts is deduplicated elsewhere.
CREATE TABLE webhook_deliveries (
    id text NOT NULL,
    created_at timestamp NOT NULL,
    endpoint_id text NOT NULL,
    external_delivery_id text NOT NULL,
    idempotency_key text NOT NULL,
    status text NOT NULL,
    PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);

-- Silent: trace events carry the key of the run they belong to.
-- task_events.run_id names no table run(s); in a schema whose tables begin
-- with "task" it points at task_runs, which has the key and is judged on
-- its own.
CREATE TABLE task_runs (
    id text PRIMARY KEY,
    idempotency_key text NOT NULL,
    environment_id text NOT NULL,
    CONSTRAINT task_runs_env_key UNIQUE (environment_id, idempotency_key)
);
CREATE TABLE task_events (
    id text PRIMARY KEY,
    run_id text NOT NULL,
    trace_id text NOT NULL,
    idempotency_key text
);
CREATE INDEX task_events_run_id ON task_events (run_id);

-- Positive: partitioned by tenant, not by time. A unique index over
-- (tenant_id, idempotency_key) holds the partition key and would keep the
-- key unique; the plain index is the check-then-insert.
CREATE TABLE tenant_payments (
    tenant_id bigint NOT NULL,
    id bigint NOT NULL,
    idempotency_key text NOT NULL, -- want: key-without-unique "tenant_payments.idempotency_key is named like an idempotency or dedupe key"
    PRIMARY KEY (tenant_id, id)
) PARTITION BY LIST (tenant_id);
CREATE INDEX tenant_payments_key ON tenant_payments (tenant_id, idempotency_key);

-- Positive: events whose run table has no key of its own carry a key
-- nothing gates.
CREATE TABLE job_runs (id text PRIMARY KEY, queue text NOT NULL);
CREATE TABLE job_events (
    id text PRIMARY KEY,
    run_id text NOT NULL,
    idempotency_key text NOT NULL -- want: key-without-unique "job_events.idempotency_key"
);
CREATE INDEX job_events_key ON job_events (idempotency_key);
