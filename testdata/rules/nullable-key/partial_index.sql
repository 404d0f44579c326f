-- A partial index: the message says which rows the hole is among.
CREATE TABLE clients (id bigint PRIMARY KEY);
CREATE TABLE api_requests (
    client_id bigint NOT NULL,
    idempotency_key text,
    deleted_at timestamptz
);
CREATE UNIQUE INDEX api_requests_live ON api_requests (client_id, idempotency_key) WHERE deleted_at IS NULL; -- want: optional-unique "idempotency_key may be NULL, so among rows where deleted_at IS NULL, api_requests without idempotency_key are not deduplicated within client_id; intended when a request that supplies no idempotency_key is not meant to be deduplicated \(if every one must be, derive a fallback key"
