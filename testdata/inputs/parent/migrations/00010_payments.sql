-- +goose Up
CREATE TABLE payments (
  id bigint PRIMARY KEY,
  account_id bigint,
  idempotency_key text NOT NULL
);
CREATE UNIQUE INDEX payments_idempotency ON payments (account_id, idempotency_key);
