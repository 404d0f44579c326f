-- UNIQUE constraints, inline and added later: reported at the constraint clause.
CREATE TABLE transfers (
    account_id bigint NOT NULL,
    transaction_id text,
    batch text,
    UNIQUE (account_id, transaction_id) -- want: optional-unique "transfers\.transfers_account_id_transaction_id_key \(account_id, transaction_id\): transaction_id may be NULL, so transfers without transaction_id"
);
ALTER TABLE transfers ADD CONSTRAINT transfers_batch UNIQUE (account_id, batch); -- want: optional-unique "batch may be NULL"
