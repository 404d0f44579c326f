-- Silent: the good example, a concurrent replacement built first.
CREATE TABLE events (
    org_id bigint NOT NULL,
    tx text NOT NULL
);
CREATE UNIQUE INDEX events_org_tx ON events (org_id, tx);
CREATE UNIQUE INDEX CONCURRENTLY events_org_tx_new ON events (tx, org_id);
DROP INDEX CONCURRENTLY events_org_tx;
ALTER INDEX events_org_tx_new RENAME TO events_org_tx;

-- Silent: the constraint is swapped for a NULLS NOT DISTINCT one.
CREATE TABLE claims (
    account_id bigint NOT NULL,
    claim_key text NOT NULL,
    CONSTRAINT claims_key UNIQUE (account_id, claim_key)
);
ALTER TABLE claims DROP CONSTRAINT claims_key,
    ADD CONSTRAINT claims_key_nnd UNIQUE NULLS NOT DISTINCT (account_id, claim_key);

-- Silent: the replacement only leaves out rows with a NULL key part, which
-- the old index never protected.
CREATE TABLE coupons (
    campaign_id bigint NOT NULL,
    code text NOT NULL
);
CREATE UNIQUE INDEX coupons_code ON coupons (campaign_id, code);
DROP INDEX coupons_code;
CREATE UNIQUE INDEX coupons_code_present ON coupons (campaign_id, code) WHERE code IS NOT NULL;

-- Silent: a stricter unique index over part of the key stays.
CREATE TABLE devices (
    serial text NOT NULL,
    vendor text NOT NULL,
    CONSTRAINT devices_serial_key UNIQUE (serial)
);
CREATE UNIQUE INDEX devices_vendor_serial ON devices (vendor, serial);
DROP INDEX devices_vendor_serial;

-- Silent: the whole table goes.
CREATE TABLE scratch (
    a bigint NOT NULL,
    b bigint NOT NULL,
    UNIQUE (a, b)
);
DROP TABLE scratch;

-- Silent: a plain index is not uniqueness.
CREATE TABLE lookups (k text NOT NULL);
CREATE INDEX lookups_k ON lookups (k);
DROP INDEX lookups_k;

-- Silent: the replacement keeps only live rows unique. deleted_at is a
-- soft-delete column by structure (a nullable timestamp that a partial
-- index tests with IS NULL), and uniqueness among live rows is what the
-- application needs.
CREATE TABLE handles (
    user_id bigint NOT NULL,
    handle text NOT NULL,
    deleted_at timestamptz
);
CREATE UNIQUE INDEX handles_handle ON handles (user_id, handle);
DROP INDEX handles_handle;
CREATE UNIQUE INDEX handles_live ON handles (user_id, handle) WHERE deleted_at IS NULL;

-- Positive next to it: a column named deleted_at that is no timestamp is
-- not a soft-delete column by its name alone.
CREATE TABLE aliases (
    user_id bigint NOT NULL,
    alias text NOT NULL,
    deleted_at text
);
CREATE UNIQUE INDEX aliases_alias ON aliases (user_id, alias);
DROP INDEX aliases_alias; -- want: unique-dropped "^aliases.aliases_alias \(user_id, alias\): the unique index is dropped and no migration restores uniqueness"
CREATE UNIQUE INDEX aliases_live ON aliases (user_id, alias) WHERE deleted_at IS NULL;

-- Positive: a replacement that keeps only some live rows unique.
CREATE TABLE coupons_v2 (
    campaign_id bigint NOT NULL,
    code text NOT NULL,
    status text NOT NULL
);
CREATE UNIQUE INDEX coupons_v2_code ON coupons_v2 (campaign_id, code);
DROP INDEX coupons_v2_code; -- want: unique-dropped "coupons_v2.coupons_v2_code \(campaign_id, code\): the unique index is dropped"
CREATE UNIQUE INDEX coupons_v2_active ON coupons_v2 (campaign_id, code) WHERE status = 'active';
