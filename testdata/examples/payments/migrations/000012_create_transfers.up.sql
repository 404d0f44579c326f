-- Transfers are deduplicated per account on the destination and the
-- client's transfer reference.
CREATE TABLE transfers (
    id            bigserial PRIMARY KEY,
    account_id    bigint NOT NULL REFERENCES accounts (id),
    destination   text NOT NULL,
    transfer_ref  text NOT NULL,
    amount        bigint NOT NULL,
    CONSTRAINT transfers_account_destination_ref_key UNIQUE (account_id, destination, transfer_ref)
);
