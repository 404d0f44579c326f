-- Each form of directive: the ones that silence a finding are not reported,
-- the stale and malformed ones are reported where they are written.
CREATE TABLE accounts (id bigint PRIMARY KEY, email text, tenant_id bigint NOT NULL);
CREATE TABLE claims (account_id bigint NOT NULL, kind text NOT NULL, namespace text);

-- A working directive: the nullable-key finding below is suppressed.
-- idemcheck:ignore nullable-key namespace is NULL only for the global claim, enforced by a trigger
CREATE UNIQUE INDEX claims_key ON claims (account_id, kind, namespace);

-- A stale one: tenant_id is NOT NULL, so there is nothing to ignore.
-- idemcheck:ignore nullable-key tenants are optional -- want: unused-ignore "suppresses nothing"
CREATE UNIQUE INDEX accounts_tenant ON accounts (tenant_id, id);

-- No reason: malformed, so the finding below is still reported.
/* idemcheck:ignore nullable-key */ -- want: unused-ignore "a reason is required"
CREATE UNIQUE INDEX claims_key2 ON claims (account_id, namespace); -- want: nullable-key "namespace may be NULL"

-- A rule nobody registered.
-- idemcheck:ignore nullable-keys typo -- want: unused-ignore "unknown rule"

-- The whole file: email may be NULL everywhere here, on purpose.
-- idemcheck:ignore-file optional-unique accounts may sign up without an email
CREATE UNIQUE INDEX accounts_email ON accounts (email);

-- At the end of the file, with no statement after it.
-- idemcheck:ignore nullable-key nothing follows -- want: unused-ignore "followed by no statement"
