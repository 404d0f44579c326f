-- Positive: an idempotency key with only a plain index.
CREATE TABLE payments (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL -- want: key-without-unique "^payments.idempotency_key is named like an idempotency or dedupe key, but no unique index has it as a key part, so two payments with the same idempotency_key are both accepted: the uniqueness lives only in an application check$"
);
CREATE INDEX payments_idempotency_key ON payments (idempotency_key);

-- Positive: a nullable dedupe key, and a request id, with no index at all.
CREATE TABLE inbound_messages (
    id bigint PRIMARY KEY,
    dedup_key text, -- want: key-without-unique "inbound_messages.dedup_key is named like an idempotency or dedupe key"
    client_request_id uuid NOT NULL -- want: key-without-unique "inbound_messages.client_request_id"
);

-- Positive: an INCLUDE column is carried along, never compared.
CREATE TABLE transfers (
    id bigint PRIMARY KEY,
    request_id text NOT NULL -- want: key-without-unique "transfers.request_id"
);
CREATE UNIQUE INDEX transfers_id_covering ON transfers (id) INCLUDE (request_id);

-- Positive: the plain index has the author's scope; the fix keeps it.
CREATE TABLE refund_requests (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    request_id text NOT NULL -- want: key-without-unique "refund_requests.request_id"
);
CREATE INDEX refund_requests_request_id_idx ON refund_requests (account_id, request_id);
