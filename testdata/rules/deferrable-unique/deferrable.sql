-- Positive: INITIALLY DEFERRED, refused only at commit.
CREATE TABLE payment_claims (
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL,
    CONSTRAINT payment_claims_key UNIQUE (account_id, idempotency_key) DEFERRABLE INITIALLY DEFERRED -- want: deferrable-unique "^payment_claims.payment_claims_key \(account_id, idempotency_key\): the UNIQUE constraint payment_claims_key is DEFERRABLE INITIALLY DEFERRED, so a duplicate \(account_id, idempotency_key\) is refused only at commit, after both requests have done their work, and INSERT ... ON CONFLICT cannot use it as an arbiter$"
);

-- Positive: DEFERRABLE alone, added by ALTER TABLE.
CREATE TABLE positions (
    board_id bigint NOT NULL,
    slot integer NOT NULL
);
ALTER TABLE positions ADD CONSTRAINT positions_slot UNIQUE (board_id, slot) DEFERRABLE; -- want: deferrable-unique "the UNIQUE constraint positions_slot is DEFERRABLE, so a duplicate \(board_id, slot\) is refused at the end of each statement, or at commit once a transaction defers it"

-- Positive: a deferrable primary key.
CREATE TABLE jobs (
    job_id text PRIMARY KEY DEFERRABLE INITIALLY DEFERRED -- want: deferrable-unique "the PRIMARY KEY constraint jobs_pkey is DEFERRABLE INITIALLY DEFERRED"
);
