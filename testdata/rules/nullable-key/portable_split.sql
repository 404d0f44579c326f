-- Silent: the portable split from RULES.md covers the rows where namespace is NULL.
CREATE TABLE addresses (
    account bigint NOT NULL,
    kind text NOT NULL,
    address text NOT NULL,
    namespace text
);
CREATE UNIQUE INDEX addresses_key ON addresses (account, kind, address, namespace);
CREATE UNIQUE INDEX addresses_key_no_namespace ON addresses (account, kind, address) WHERE namespace IS NULL;
