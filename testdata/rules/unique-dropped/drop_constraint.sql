-- Positive: a UNIQUE constraint and a primary key dropped by ALTER TABLE.
CREATE TABLE transfers (
    id bigint NOT NULL,
    account_id bigint NOT NULL,
    transfer_ref text NOT NULL,
    CONSTRAINT transfers_pkey PRIMARY KEY (id),
    CONSTRAINT transfers_ref_key UNIQUE (account_id, transfer_ref)
);
ALTER TABLE transfers DROP CONSTRAINT transfers_ref_key; -- want: unique-dropped "the unique constraint is dropped"
ALTER TABLE transfers DROP CONSTRAINT transfers_pkey; -- want: unique-dropped "transfers.transfers_pkey \(id\): the primary key is dropped"
