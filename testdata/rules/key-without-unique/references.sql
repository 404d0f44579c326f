-- Silent: a column named {table}_id after a table that exists references
-- it, with or without a constraint. The offered fix (a unique index on a
-- foreign key) would allow one pipeline per merge request.
CREATE TABLE merge_requests (
    id bigint PRIMARY KEY,
    title text NOT NULL
);
CREATE TABLE ci_pipelines (
    id bigint PRIMARY KEY,
    merge_request_id bigint,
    sha text NOT NULL
);
CREATE INDEX index_ci_pipelines_on_merge_request_id ON ci_pipelines (merge_request_id);

-- Silent: a declared foreign key, whatever its name.
CREATE TABLE pull_requests (
    id bigint PRIMARY KEY,
    number integer NOT NULL
);
CREATE TABLE reviews (
    id bigint PRIMARY KEY,
    pull_request_id bigint NOT NULL REFERENCES pull_requests (id),
    body text
);
CREATE INDEX reviews_pull_request_id_idx ON reviews (pull_request_id);

-- Silent: a row of a key table, referenced from the resource it made.
CREATE TABLE idempotency_keys (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    UNIQUE (account_id, idempotency_key)
);
CREATE TABLE charges (
    id bigint PRIMARY KEY,
    idempotency_key_id bigint NOT NULL,
    amount bigint NOT NULL,
    CONSTRAINT charges_key_fk FOREIGN KEY (idempotency_key_id) REFERENCES idempotency_keys (id)
);
CREATE INDEX charges_idempotency_key_id ON charges (idempotency_key_id);

-- Positive next to them: a request id that names no table, looked up by a
-- plain index.
CREATE TABLE refunds (
    id bigint PRIMARY KEY,
    refund_request_id text NOT NULL -- want: key-without-unique "refunds.refund_request_id is named like an idempotency or dedupe key"
);
CREATE INDEX refunds_request ON refunds (refund_request_id);

-- Positive: a foreign key dropped later leaves an ordinary column (looked
-- up by an index: the key table above claims only what nothing looks up).
CREATE TABLE remote_calls (
    id bigint PRIMARY KEY,
    client_request_id bigint, -- want: key-without-unique "remote_calls.client_request_id"
    CONSTRAINT remote_calls_request_fk FOREIGN KEY (client_request_id) REFERENCES pull_requests (id)
);
CREATE INDEX remote_calls_request ON remote_calls (client_request_id);
ALTER TABLE remote_calls DROP CONSTRAINT remote_calls_request_fk;
