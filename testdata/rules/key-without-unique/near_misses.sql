-- Silent: a unique index scoped per account has the key as a key part.
CREATE TABLE charges (
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    UNIQUE (account_id, idempotency_key)
);

-- Silent: an expression over the key counts.
CREATE TABLE signups (
    id bigint PRIMARY KEY,
    dedupe_key text NOT NULL
);
CREATE UNIQUE INDEX signups_dedupe ON signups (lower(dedupe_key));

-- Silent: the partitioned parent reports for its partitions, and here it
-- has the unique index.
CREATE TABLE webhook_events (
    request_id text NOT NULL,
    received_on date NOT NULL,
    UNIQUE (request_id, received_on)
) PARTITION BY RANGE (received_on);
CREATE TABLE webhook_events_2026 PARTITION OF webhook_events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');

-- Silent: names that only look alike.
CREATE TABLE requests (
    id bigint PRIMARY KEY,
    requested_by text,
    request_path text,
    deduction_cents bigint
);
