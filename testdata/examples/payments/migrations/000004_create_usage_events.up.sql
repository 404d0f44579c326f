-- Usage-metering events arrive from clients that retry. An event is
-- deduplicated on the client's transaction id within its organization and
-- subscription. Events sent before a subscription exists have none.
CREATE TABLE usage_events (
    id                        uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    organization_id           uuid NOT NULL,
    external_subscription_id  text,
    transaction_id            text NOT NULL,
    code                      text NOT NULL,
    properties                jsonb NOT NULL DEFAULT '{}',
    timestamp                 timestamptz NOT NULL,
    created_at                timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX index_unique_transaction_id
    ON usage_events (organization_id, external_subscription_id, transaction_id);

CREATE INDEX usage_events_code_idx ON usage_events (organization_id, code, timestamp);
