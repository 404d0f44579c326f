-- The hole from RULES.md: a nullable middle key part of a dedupe index.
CREATE TABLE events (
    id bigserial PRIMARY KEY,
    organization_id bigint NOT NULL,
    external_subscription_id text,
    transaction_id text NOT NULL,
    payload jsonb
);

CREATE UNIQUE INDEX index_unique_transaction_id ON events (organization_id, external_subscription_id, transaction_id); -- want: nullable-key "^events\.index_unique_transaction_id \(organization_id, external_subscription_id, transaction_id\): external_subscription_id may be NULL, so two events with the same organization_id and transaction_id and no external_subscription_id are both accepted$"
