-- The portable split closes the hole in the first index.
CREATE TABLE addresses (
    account_id bigint NOT NULL,
    kind text NOT NULL,
    address text NOT NULL,
    namespace text
);
CREATE UNIQUE INDEX addresses_key ON addresses (account_id, kind, address, namespace);
CREATE UNIQUE INDEX addresses_key_no_namespace ON addresses (account_id, kind, address) WHERE namespace IS NULL;

-- Unique when present: a single optional key part.
CREATE TABLE customers (
    id bigint PRIMARY KEY,
    external_ref text UNIQUE
);
