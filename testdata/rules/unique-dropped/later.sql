-- Silent: a later statement restores the same key (here in the same file;
-- TestUniqueDroppedLaterMigrations has it in later migrations).
CREATE TABLE events (
    org_id bigint NOT NULL,
    tx text NOT NULL,
    kind text NOT NULL
);
CREATE UNIQUE INDEX events_org_tx ON events (org_id, tx);
DROP INDEX events_org_tx;
ALTER TABLE events ADD COLUMN received_at timestamptz;
CREATE UNIQUE INDEX events_org_tx_again ON events (tx, org_id);

-- Silent: a later index over part of the key is stricter.
CREATE TABLE invoices (
    account_id bigint NOT NULL,
    number text NOT NULL
);
CREATE UNIQUE INDEX invoices_account_number ON invoices (account_id, number);
DROP INDEX invoices_account_number;
CREATE UNIQUE INDEX invoices_number ON invoices (number);

-- Silent: the key's column is dropped later, and the table.
CREATE TABLE legacy_refs (
    account_id bigint NOT NULL,
    legacy_ref text NOT NULL
);
CREATE UNIQUE INDEX legacy_refs_ref ON legacy_refs (account_id, legacy_ref);
DROP INDEX legacy_refs_ref;
ALTER TABLE legacy_refs DROP COLUMN legacy_ref;
CREATE TABLE imports (
    source text NOT NULL,
    external_id text NOT NULL,
    UNIQUE (source, external_id)
);
ALTER TABLE imports DROP CONSTRAINT imports_source_external_id_key;
DROP TABLE imports;

-- Silent: renames are followed, the table's and the columns'.
CREATE TABLE tokens (
    owner_id bigint NOT NULL,
    token text NOT NULL
);
CREATE UNIQUE INDEX tokens_owner_token ON tokens (owner_id, token);
DROP INDEX tokens_owner_token;
ALTER TABLE tokens RENAME TO access_tokens;
ALTER TABLE access_tokens RENAME COLUMN token TO secret;
CREATE UNIQUE INDEX access_tokens_secret ON access_tokens (owner_id, secret);

-- Positive: a column dropped and added again under the same name is a new
-- column; the index over it is not the old key.
CREATE TABLE badges (
    user_id bigint NOT NULL,
    code text NOT NULL
);
CREATE UNIQUE INDEX badges_user_code ON badges (user_id, code);
DROP INDEX badges_user_code; -- want: unique-dropped "badges.badges_user_code \(user_id, code\): the unique index is dropped and no migration restores"
ALTER TABLE badges RENAME COLUMN user_id TO old_user_id;
ALTER TABLE badges ADD COLUMN user_id bigint NOT NULL;
CREATE UNIQUE INDEX badges_new_user_code ON badges (user_id, code);
