CREATE TABLE IF NOT EXISTS public.staging_only (id bigint);
INSERT INTO public.orders (id, placed_at) VALUES (1, now());
