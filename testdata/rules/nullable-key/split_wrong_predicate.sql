-- A "split" on a different predicate does not cover the hole.
CREATE TABLE aliases (
    account bigint NOT NULL,
    address text NOT NULL,
    namespace text,
    deleted_at timestamptz
);
CREATE UNIQUE INDEX aliases_key ON aliases (account, address, namespace); -- want: nullable-key "namespace may be NULL"
CREATE UNIQUE INDEX aliases_key_live ON aliases (account, address) WHERE deleted_at IS NULL;
