-- A drop its own migration declares deliberate is info: the loss is real,
-- and the change that made it says it is meant. This file is one
-- migration.

-- The index is re-created under its own name over another key: one
-- message may now start several executions.
CREATE TABLE event_executions (
    handler text NOT NULL,
    event text NOT NULL,
    message_id text NOT NULL,
    execution_id text NOT NULL
);
CREATE UNIQUE INDEX unique_event_execution ON event_executions (handler, event, message_id);
DROP INDEX unique_event_execution; -- want: unique-dropped/info "^event_executions.unique_event_execution \(handler, event, message_id\): the unique index is dropped and the same migration makes unique_event_execution \(handler, event, execution_id\) unique instead, so the loss is intended: from here on rows with the same handler, event and message_id are all accepted$"
CREATE UNIQUE INDEX unique_event_execution ON event_executions (handler, event, execution_id);

-- Environments move under projects: the migration adds project_id and keys
-- the table on it.
CREATE TABLE environments (
    id text PRIMARY KEY,
    organization_id text NOT NULL,
    slug text NOT NULL,
    CONSTRAINT environments_organization_id_slug_key UNIQUE (organization_id, slug)
);
ALTER TABLE environments ADD COLUMN project_id text NOT NULL, ADD COLUMN member_id text;
ALTER TABLE environments DROP CONSTRAINT environments_organization_id_slug_key; -- want: unique-dropped/info "same migration makes environments_project_id_slug_member_id_key \(project_id, slug, member_id\) unique instead"
ALTER TABLE environments ADD CONSTRAINT environments_project_id_slug_member_id_key UNIQUE (project_id, slug, member_id); -- want: nullable-key "member_id may be NULL"

-- The key moves to a digest the same statement adds.
CREATE TABLE session_credentials (
    session_id text NOT NULL,
    credential bytea NOT NULL,
    CONSTRAINT session_credentials_session_id_credential_uq UNIQUE (session_id, credential)
);
ALTER TABLE session_credentials DROP CONSTRAINT session_credentials_session_id_credential_uq, ADD COLUMN credential_sha256 bytea NOT NULL; -- want: unique-dropped/info "same migration makes session_credentials_session_id_credential_sha256_uq \(session_id, credential_sha256\) unique instead"
ALTER TABLE session_credentials ADD CONSTRAINT session_credentials_session_id_credential_sha256_uq UNIQUE (session_id, credential_sha256);

-- One row becomes one row per metric, a column the migration adds as the
-- new primary key.
CREATE TABLE census_uploads (
    last_uploaded_at timestamptz NOT NULL,
    CONSTRAINT census_uploads_pkey PRIMARY KEY (last_uploaded_at)
);
ALTER TABLE census_uploads DROP CONSTRAINT census_uploads_pkey; -- want: unique-dropped/info "^census_uploads.census_uploads_pkey \(last_uploaded_at\): the primary key is dropped and the same migration makes census_uploads_pkey \(metric\) unique instead"
ALTER TABLE census_uploads ADD COLUMN metric text NOT NULL DEFAULT 'sessions' PRIMARY KEY;

-- The same key over fewer rows, selected by a flag the migration adds:
-- accounts from single sign-on may share an email.
CREATE TABLE users (
    id uuid PRIMARY KEY,
    email text,
    CONSTRAINT users_email_key UNIQUE (email)
);
ALTER TABLE users ADD COLUMN is_sso_user boolean NOT NULL DEFAULT false;
ALTER TABLE users DROP CONSTRAINT users_email_key; -- want: unique-dropped/info "same migration makes users_email_partial_key \(email\) WHERE is_sso_user = false unique instead"
CREATE UNIQUE INDEX users_email_partial_key ON users (email) WHERE is_sso_user = false; -- want: optional-unique "email may be NULL"

-- The version label becomes optional in the same migration: the key is
-- retired with it.
CREATE TABLE workflow_versions (
    id uuid PRIMARY KEY,
    workflow_id uuid NOT NULL,
    version text NOT NULL
);
CREATE UNIQUE INDEX workflow_versions_workflow_id_version_key ON workflow_versions (workflow_id, version);
DROP INDEX workflow_versions_workflow_id_version_key; -- want: unique-dropped/info "^workflow_versions.workflow_versions_workflow_id_version_key \(workflow_id, version\): the unique index is dropped and the same migration lets version be NULL, retiring the key, so the loss is intended"
ALTER TABLE workflow_versions ADD COLUMN checksum text NOT NULL DEFAULT '';
ALTER TABLE workflow_versions ALTER COLUMN version DROP NOT NULL;

-- Silent: a unique index over an expression of the key keeps the key unique
-- (equal names have equal lower(name)).
CREATE TABLE crates (
    id integer PRIMARY KEY,
    name text NOT NULL,
    CONSTRAINT packages_name_key UNIQUE (name)
);
ALTER TABLE crates DROP CONSTRAINT packages_name_key;
CREATE UNIQUE INDEX index_crates_name ON crates (lower(name));
-- The expression is replaced under the index's own name.
CREATE FUNCTION canon_crate_name(text) RETURNS text AS $$ SELECT replace(lower($1), '-', '_') $$ LANGUAGE sql IMMUTABLE;
DROP INDEX index_crates_name; -- want: unique-dropped/info "same migration makes index_crates_name \(\(canon_crate_name\(name\)\)\) unique instead"
CREATE UNIQUE INDEX index_crates_name ON crates (canon_crate_name(name)); -- want: optional-unique "canon_crate_name"

-- Near misses, warnings: an index rebuilt without UNIQUE in the same
-- migration, and a new key over old columns under a new name.
CREATE TABLE payouts (
    account_id bigint NOT NULL,
    payout_ref text NOT NULL,
    batch_no integer NOT NULL
);
CREATE UNIQUE INDEX payouts_ref ON payouts (account_id, payout_ref);
DROP INDEX payouts_ref; -- want: unique-dropped/warning "^payouts.payouts_ref \(account_id, payout_ref\): the unique index is dropped and no migration restores uniqueness"
CREATE INDEX payouts_ref ON payouts (account_id, payout_ref);
CREATE UNIQUE INDEX payouts_batch ON payouts (account_id, batch_no);
DROP INDEX payouts_batch; -- want: unique-dropped/warning "^payouts.payouts_batch \(account_id, batch_no\): the unique index is dropped and no migration restores"
CREATE UNIQUE INDEX payouts_batch_ref ON payouts (batch_no, payout_ref);
