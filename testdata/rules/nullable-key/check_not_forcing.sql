-- A CHECK passes when it is NULL: comparisons prove nothing about NULL.
CREATE TABLE refunds (
    account_id bigint NOT NULL,
    amount bigint,
    reason text,
    CONSTRAINT amount_positive CHECK (amount > 0),
    CONSTRAINT reason_known CHECK (reason IN ('fraud', 'duplicate') OR amount IS NOT NULL)
);
CREATE UNIQUE INDEX refunds_amount ON refunds (account_id, amount); -- want: optional-unique "amount may be NULL, so refunds without amount are not deduplicated within account_id"
CREATE UNIQUE INDEX refunds_reason ON refunds (account_id, reason); -- want: optional-unique "reason may be NULL, so refunds without reason are not deduplicated within account_id"
