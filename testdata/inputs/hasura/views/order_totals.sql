-- The current definition of the view, kept for review; migrations create it.
CREATE OR REPLACE VIEW public.order_totals AS SELECT id FROM public.orders;
