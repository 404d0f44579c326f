-- The hole in an old index opened by a later statement: each finding is
-- placed at that statement (RULES.md, "Messages"), so that reporting only
-- what a change adds (--new-from-rev) lands on the migration that did it.

-- A dropped partial index that covered the rows where namespace is NULL.
CREATE TABLE charge_claims (
    account_id bigint NOT NULL,
    kind text NOT NULL,
    address text NOT NULL,
    namespace text
);
CREATE UNIQUE INDEX charge_claims_key ON charge_claims (account_id, kind, address, namespace);
CREATE UNIQUE INDEX charge_claims_key_no_ns ON charge_claims (account_id, kind, address) WHERE namespace IS NULL;
DROP INDEX charge_claims_key_no_ns; -- want: nullable-key "^charge_claims\.charge_claims_key \(account_id, kind, address, namespace\): namespace may be NULL" unique-dropped "charge_claims_key_no_ns"

-- A dropped CHECK that kept the key part from being NULL.
CREATE TABLE refund_claims (
    charge_id bigint NOT NULL,
    reason text,
    CONSTRAINT refund_claims_reason_present CHECK (reason IS NOT NULL)
);
CREATE UNIQUE INDEX refund_claims_key ON refund_claims (charge_id, reason);
ALTER TABLE refund_claims DROP CONSTRAINT refund_claims_reason_present; -- want: nullable-key "reason may be NULL"

-- A rename of the nullable key column: the finding names the new column,
-- so it is a new finding, placed at the rename.
CREATE TABLE usage_claims (
    organization_id bigint NOT NULL,
    sub text,
    transaction_id text NOT NULL
);
CREATE UNIQUE INDEX usage_claims_key ON usage_claims (organization_id, sub, transaction_id);
ALTER TABLE usage_claims RENAME COLUMN sub TO subscription_id; -- want: nullable-key "subscription_id may be NULL"

-- A rename of the table: the finding's object is named anew there.
CREATE TABLE webhook_claim (
    endpoint_id bigint NOT NULL,
    event_ref text
);
CREATE UNIQUE INDEX webhook_claims_key ON webhook_claim (endpoint_id, event_ref);
ALTER TABLE webhook_claim RENAME TO webhook_claims; -- want: nullable-key "^webhook_claims\.webhook_claims_key \(endpoint_id, event_ref\): event_ref may be NULL"

-- Near miss: a dropped index that never covered the hole, and a dropped
-- CHECK that never proved the part, leave the finding at the index.
CREATE TABLE payout_claims (
    account_id bigint NOT NULL,
    reference text,
    amount bigint,
    CONSTRAINT payout_claims_amount_positive CHECK (amount > 0)
);
CREATE INDEX payout_claims_amount ON payout_claims (amount);
CREATE UNIQUE INDEX payout_claims_key ON payout_claims (account_id, reference); -- want: nullable-key "reference may be NULL"
DROP INDEX payout_claims_amount;
ALTER TABLE payout_claims DROP CONSTRAINT payout_claims_amount_positive;
