-- DEFERRABLE, NOT DEFERRABLE and INITIALLY DEFERRED / IMMEDIATE written in a
-- column definition modify the constraint just before them, whatever its
-- kind: in "UNIQUE REFERENCES accounts DEFERRABLE" the foreign key is
-- deferrable and the unique constraint is not.
CREATE TABLE accounts (
    id bigint PRIMARY KEY,
    code text NOT NULL UNIQUE
);

CREATE TABLE payments (
    id bigint PRIMARY KEY NOT DEFERRABLE INITIALLY IMMEDIATE,
    -- the foreign key is deferrable; the unique constraint is checked at once
    account_id bigint NOT NULL UNIQUE REFERENCES accounts DEFERRABLE,
    -- the unique constraint is deferred; the foreign key is not
    account_code text NOT NULL REFERENCES accounts (code) UNIQUE DEFERRABLE INITIALLY DEFERRED,
    -- INITIALLY DEFERRED alone makes the foreign key deferrable, not the key
    request_id text NOT NULL UNIQUE REFERENCES accounts (code) INITIALLY DEFERRED
);

ALTER TABLE payments
    ADD COLUMN batch_id bigint NOT NULL UNIQUE REFERENCES accounts INITIALLY DEFERRED,
    ADD COLUMN batch_code text NOT NULL REFERENCES accounts (code) NOT DEFERRABLE UNIQUE DEFERRABLE;

-- A UNIQUE equal to the primary key is not built, and its name goes to the
-- unnamed key; a repeated UNIQUE is built once.
CREATE TABLE receipts (
    no text PRIMARY KEY,
    CONSTRAINT receipts_no_uq UNIQUE (no),
    store_no int UNIQUE UNIQUE
);
