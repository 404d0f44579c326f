CREATE TABLE events (
    organization_id bigint NOT NULL,
    subscription_id bigint,
    transaction_id  text NOT NULL
);
CREATE UNIQUE INDEX events_key ON events (organization_id, subscription_id, transaction_id);
