CREATE TABLE payments (
    id bigserial PRIMARY KEY,
    customer_id bigint NOT NULL REFERENCES customers (id),
    idempotency_key text,
    amount_cents bigint NOT NULL
);
