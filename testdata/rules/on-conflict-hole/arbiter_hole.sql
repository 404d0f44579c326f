-- Positive: the arbiter has a hole on the conflict columns.
CREATE TABLE events (
    organization_id bigint NOT NULL,
    external_subscription_id text,
    transaction_id text NOT NULL,
    CONSTRAINT events_dedupe UNIQUE (organization_id, external_subscription_id, transaction_id) -- want: nullable-key "external_subscription_id may be NULL"
);
INSERT INTO events (organization_id, external_subscription_id, transaction_id) VALUES (1, NULL, 'tx_1') ON CONFLICT (organization_id, external_subscription_id, transaction_id) DO NOTHING; -- want: on-conflict-hole "^INSERT INTO events ... ON CONFLICT \(organization_id, external_subscription_id, transaction_id\) DO NOTHING: the arbiter events.events_dedupe \(organization_id, external_subscription_id, transaction_id\) lets external_subscription_id be NULL, and when it is the conflict never fires: a repeated request inserts a second row instead of DO NOTHING$"
-- The target in another order infers the same arbiter; ON CONSTRAINT names it.
INSERT INTO events (organization_id, external_subscription_id, transaction_id) VALUES (1, NULL, 'tx_1') -- want: on-conflict-hole "instead of DO UPDATE$"
ON CONFLICT (transaction_id, organization_id, external_subscription_id) DO UPDATE SET transaction_id = excluded.transaction_id;
INSERT INTO events VALUES (1, NULL, 'tx_1') ON CONFLICT ON CONSTRAINT events_dedupe DO NOTHING; -- want: on-conflict-hole "ON CONFLICT ON CONSTRAINT events_dedupe DO NOTHING: the arbiter events.events_dedupe"
-- The rows the hole let through go, so the fix tests start from an empty table.
TRUNCATE events;
