-- Positive: DROP COLUMN takes the unique index with it without naming it.
CREATE TABLE webhooks (
    endpoint_id bigint NOT NULL,
    delivery_ref text NOT NULL
);
CREATE UNIQUE INDEX webhooks_delivery ON webhooks (endpoint_id, delivery_ref);
ALTER TABLE webhooks DROP COLUMN delivery_ref; -- want: unique-dropped "webhooks.webhooks_delivery \(endpoint_id, delivery_ref\): the unique index goes with the dropped column delivery_ref"
