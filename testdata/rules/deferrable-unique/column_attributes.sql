-- DEFERRABLE and INITIALLY DEFERRED written in a column definition modify
-- the constraint just before them: a foreign key's deferrability is not the
-- unique constraint's.
CREATE TABLE accounts (id bigint PRIMARY KEY, code text NOT NULL UNIQUE);
CREATE TABLE payments (
    account_id bigint NOT NULL UNIQUE REFERENCES accounts DEFERRABLE,
    request_id text NOT NULL UNIQUE REFERENCES accounts (code) INITIALLY DEFERRED,
    account_code text NOT NULL REFERENCES accounts (code) UNIQUE DEFERRABLE INITIALLY DEFERRED, -- want: deferrable-unique "the UNIQUE constraint payments_account_code_key is DEFERRABLE INITIALLY DEFERRED"
    batch_id bigint NOT NULL UNIQUE DEFERRABLE REFERENCES accounts NOT DEFERRABLE -- want: deferrable-unique "the UNIQUE constraint payments_batch_id_key is DEFERRABLE, so"
);
