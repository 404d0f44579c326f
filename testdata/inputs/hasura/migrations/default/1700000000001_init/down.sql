DROP TABLE public.orders;
