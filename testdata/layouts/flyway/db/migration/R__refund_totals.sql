CREATE OR REPLACE VIEW refund_totals AS SELECT merchant_id, count(*) FROM refunds GROUP BY merchant_id;
