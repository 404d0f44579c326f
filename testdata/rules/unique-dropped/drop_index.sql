-- Positive: the unique index is dropped and nothing replaces it.
CREATE TABLE payouts (
    account_id bigint NOT NULL,
    payout_ref text NOT NULL
);
CREATE UNIQUE INDEX payouts_ref ON payouts (account_id, payout_ref);
DROP INDEX payouts_ref; -- want: unique-dropped "^payouts.payouts_ref \(account_id, payout_ref\): the unique index is dropped and this migration creates no unique index over \(account_id, payout_ref\), so from here on rows with the same account_id and payout_ref are all accepted$"
