CREATE TABLE events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id bigint NOT NULL,
    external_subscription_id text,
    transaction_id text NOT NULL,
    payload jsonb
);

-- The hole: two events with the same organization and transaction and no
-- subscription are both accepted.
CREATE UNIQUE INDEX index_unique_transaction_id
    ON events (organization_id, external_subscription_id, transaction_id);
