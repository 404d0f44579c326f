CREATE TABLE public.payments (
  id bigint PRIMARY KEY,
  account_id bigint,
  idempotency_key text NOT NULL
);
CREATE UNIQUE INDEX payments_idempotency ON public.payments (account_id, idempotency_key);
