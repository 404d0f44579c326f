CREATE OR REPLACE VIEW public.payment_keys AS SELECT idempotency_key FROM public.payments;
