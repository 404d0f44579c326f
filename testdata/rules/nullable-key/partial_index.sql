-- A partial index: the message says which rows the hole is among.
CREATE TABLE api_requests (
    client_id bigint NOT NULL,
    idempotency_key text,
    deleted_at timestamptz
);
CREATE UNIQUE INDEX api_requests_live ON api_requests (client_id, idempotency_key) WHERE deleted_at IS NULL; -- want: nullable-key "idempotency_key may be NULL, so among rows where deleted_at IS NULL, two api_requests with the same client_id and no idempotency_key are both accepted"
