-- Refund requests carry the client's request id. The handler looks the id up
-- before it inserts (SELECT, then INSERT), so only a plain index was added.
CREATE TABLE refund_requests (
    id          bigserial PRIMARY KEY,
    account_id  bigint NOT NULL REFERENCES accounts (id),
    request_id  text NOT NULL,
    amount      bigint NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX refund_requests_request_id_idx ON refund_requests (account_id, request_id);
