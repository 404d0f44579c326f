-- Silent: the primary key is the workflow's own identity. A second start of
-- the same workflow collides on it; create_request_id only records which
-- request started the current run.
CREATE TABLE current_executions (
    shard_id integer NOT NULL,
    namespace_id bytea NOT NULL,
    workflow_id character varying(255) NOT NULL,
    run_id bytea NOT NULL,
    create_request_id character varying(255) NOT NULL,
    state integer NOT NULL,
    PRIMARY KEY (shard_id, namespace_id, workflow_id)
);
CREATE INDEX current_executions_request ON current_executions (create_request_id);

-- Silent: an entry of a durable log is identified by its task, branch and
-- node; its idempotency key is a checksum of what the node did.
CREATE TABLE durable_event_log_entry (
    durable_task_id bigint NOT NULL,
    durable_task_inserted_at timestamptz NOT NULL,
    branch_id bigint NOT NULL,
    node_id bigint NOT NULL,
    idempotency_key bytea NOT NULL,
    CONSTRAINT durable_event_log_entry_pkey PRIMARY KEY (durable_task_id, durable_task_inserted_at, branch_id, node_id)
);

-- Positive: surrogate primary keys gate nothing: an identity, an id inside
-- a composite key, and the table's own {table}_id.
CREATE TABLE payments (
    payment_no bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    idempotency_key text NOT NULL -- want: key-without-unique "payments.idempotency_key"
);
CREATE TABLE tenant_orders (
    tenant_id bigint NOT NULL,
    id uuid NOT NULL,
    idempotency_key text NOT NULL, -- want: key-without-unique "tenant_orders.idempotency_key"
    PRIMARY KEY (tenant_id, id)
);
CREATE TABLE charges (
    charge_id uuid PRIMARY KEY,
    dedupe_key text NOT NULL -- want: key-without-unique "charges.dedupe_key"
);
