-- Outgoing webhooks, partitioned by month. Each month's partition gets a
-- unique index on the delivery reference when it is created; the parent has
-- none.
CREATE TABLE webhook_deliveries (
    delivery_ref  text NOT NULL,
    account_id    bigint NOT NULL,
    delivered_on  date NOT NULL,
    payload       jsonb NOT NULL
) PARTITION BY RANGE (delivered_on);

CREATE TABLE webhook_deliveries_2026_01 PARTITION OF webhook_deliveries
    FOR VALUES FROM ('2026-01-01') TO ('2026-02-01');

CREATE UNIQUE INDEX webhook_deliveries_2026_01_ref_key
    ON webhook_deliveries_2026_01 (delivery_ref, delivered_on);
