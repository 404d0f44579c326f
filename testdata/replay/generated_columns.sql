-- Generated columns hold their expression's value: a unique index over one
-- is null-safe exactly when the expression is never NULL on its columns.
CREATE TABLE identities (
    id uuid PRIMARY KEY,
    provider text NOT NULL,
    identity_data jsonb NOT NULL,
    provider_ref text,
    -- may be NULL: the JSON key may be absent
    email text GENERATED ALWAYS AS (lower(identity_data ->> 'email')) STORED,
    -- never NULL: COALESCE ends in a constant
    subject text GENERATED ALWAYS AS (COALESCE(identity_data ->> 'sub', 'anonymous')) STORED
);
CREATE UNIQUE INDEX identities_provider_subject ON identities (provider, subject);
CREATE UNIQUE INDEX identities_provider_email ON identities (provider, email);

-- never NULL: id is the primary key; the expression follows the rename
ALTER TABLE identities ADD COLUMN ext_key text
    GENERATED ALWAYS AS (COALESCE(provider_ref, id::text)) STORED;
CREATE UNIQUE INDEX identities_ext_key ON identities (provider, ext_key);
ALTER TABLE identities RENAME COLUMN provider_ref TO provider_id;

-- A column copied with LIKE ... INCLUDING GENERATED keeps its expression;
-- without it, the copy is a plain nullable column.
CREATE TABLE identities_archive (LIKE identities INCLUDING GENERATED);
CREATE UNIQUE INDEX identities_archive_subject ON identities_archive (provider, subject);
CREATE TABLE identities_plain (LIKE identities);
CREATE UNIQUE INDEX identities_plain_subject ON identities_plain (provider, subject);

-- DROP EXPRESSION turns it into a plain column, nullable from then on.
CREATE TABLE sessions (
    id bigint PRIMARY KEY,
    user_ref text,
    session_key text GENERATED ALWAYS AS (COALESCE(user_ref, 'guest')) STORED
);
CREATE UNIQUE INDEX sessions_key ON sessions (id, session_key);
ALTER TABLE sessions ALTER COLUMN session_key DROP EXPRESSION;

-- Dropping the column an expression reads drops the generated column too
-- (with CASCADE), and the index over it.
CREATE TABLE devices (
    id bigint PRIMARY KEY,
    serial text,
    serial_key text GENERATED ALWAYS AS (upper(serial)) STORED
);
CREATE UNIQUE INDEX devices_serial_key ON devices (serial_key);
ALTER TABLE devices DROP COLUMN serial CASCADE;

-- Partitions carry the parent's expression.
CREATE TABLE logins (
    user_id bigint NOT NULL,
    device text,
    device_key text GENERATED ALWAYS AS (COALESCE(device, 'unknown')) STORED,
    day date NOT NULL
) PARTITION BY RANGE (day);
CREATE TABLE logins_2024 PARTITION OF logins FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE UNIQUE INDEX logins_device ON logins (user_id, device_key, day);
