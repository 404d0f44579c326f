-- Silent: DROP COLUMN takes the unique index with the key's own column;
-- rows without delivery_ref have nothing left to keep unique.
CREATE TABLE webhooks (
    endpoint_id bigint NOT NULL,
    delivery_ref text NOT NULL
);
CREATE UNIQUE INDEX webhooks_delivery ON webhooks (endpoint_id, delivery_ref);
ALTER TABLE webhooks DROP COLUMN delivery_ref;

-- Positive: a column the index reads only in its predicate goes, and the
-- index with it; the key is still there.
CREATE TABLE deliveries (
    endpoint_id bigint NOT NULL,
    delivery_ref text NOT NULL,
    archived boolean
);
CREATE UNIQUE INDEX deliveries_live_ref ON deliveries (endpoint_id, delivery_ref) WHERE archived IS NOT TRUE;
ALTER TABLE deliveries DROP COLUMN archived; -- want: unique-dropped "^deliveries.deliveries_live_ref \(endpoint_id, delivery_ref\): the unique index goes with the dropped column archived and no migration restores uniqueness over \(endpoint_id, delivery_ref\) or part of it"

-- Positive: the same through an INCLUDE column.
CREATE TABLE receipts (
    shop_id bigint NOT NULL,
    receipt_no text NOT NULL,
    total bigint
);
CREATE UNIQUE INDEX receipts_no ON receipts (shop_id, receipt_no) INCLUDE (total);
ALTER TABLE receipts DROP COLUMN total; -- want: unique-dropped "receipts.receipts_no \(shop_id, receipt_no\): the unique index goes with the dropped column total"
