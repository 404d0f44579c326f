-- idempotency: one payment per client key
CREATE UNIQUE INDEX payments_customer_key ON payments (customer_id, idempotency_key);
