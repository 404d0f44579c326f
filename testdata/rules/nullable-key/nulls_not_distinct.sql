-- Silent: NULLS NOT DISTINCT (PostgreSQL 15+) has no hole.
CREATE TABLE usage_records (
    organization_id bigint NOT NULL,
    external_subscription_id text,
    transaction_id text NOT NULL,
    UNIQUE NULLS NOT DISTINCT (organization_id, external_subscription_id, transaction_id)
);
CREATE UNIQUE INDEX usage_records_tx ON usage_records (transaction_id, external_subscription_id) NULLS NOT DISTINCT;
