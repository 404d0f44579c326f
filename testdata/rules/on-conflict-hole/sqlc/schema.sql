-- The schema of a sqlc project; its queries live in queries.sql and reach
-- lint through --queries. (A subdirectory, so the fixture harness, which
-- reads testdata/rules/<rule>/*.sql, leaves it to the cmd tests.)
CREATE TABLE usage_events (
    organization_id bigint NOT NULL,
    external_subscription_id text,
    transaction_id text NOT NULL,
    amount bigint NOT NULL
);
CREATE UNIQUE INDEX usage_events_dedupe
    ON usage_events (organization_id, external_subscription_id, transaction_id);
