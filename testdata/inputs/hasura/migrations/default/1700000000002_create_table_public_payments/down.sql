DROP TABLE public.payments;
