-- Positive: the unique index is dropped and nothing replaces it.
CREATE TABLE payouts (
    account_id bigint NOT NULL,
    payout_ref text NOT NULL
);
CREATE UNIQUE INDEX payouts_ref ON payouts (account_id, payout_ref);
DROP INDEX payouts_ref; -- want: unique-dropped "^payouts.payouts_ref \(account_id, payout_ref\): the unique index is dropped and no migration restores uniqueness over \(account_id, payout_ref\) or part of it, so from here on rows with the same account_id and payout_ref are all accepted$"
