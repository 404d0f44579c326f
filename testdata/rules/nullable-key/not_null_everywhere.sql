-- Silent: every key part is declared NOT NULL, by hand, identity or serial.
CREATE TABLE payments (
    id bigint GENERATED ALWAYS AS IDENTITY,
    seq serial,
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL
);
CREATE UNIQUE INDEX payments_idem ON payments (account_id, idempotency_key);
CREATE UNIQUE INDEX payments_id_and_seq ON payments (id, seq);
