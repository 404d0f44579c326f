-- Ledger entries are numbered per account. The constraint is deferrable so
-- that a rebalancing job can renumber entries inside one transaction.
CREATE TABLE ledger_entries (
    id          bigserial PRIMARY KEY,
    account_id  bigint NOT NULL REFERENCES accounts (id),
    entry_no    bigint NOT NULL,
    amount      bigint NOT NULL,
    CONSTRAINT ledger_entries_account_entry_key UNIQUE (account_id, entry_no)
        DEFERRABLE INITIALLY DEFERRED
);
