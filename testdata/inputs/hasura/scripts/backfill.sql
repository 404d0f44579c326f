ALTER TABLE public.orders ADD COLUMN IF NOT EXISTS legacy_id bigint;
UPDATE public.orders SET legacy_id = id;
