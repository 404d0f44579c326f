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

-- Positive next to its near miss: the replacement is narrower (only live
-- rows), so deleted rows lose their protection.
CREATE TABLE handles (
    user_id bigint NOT NULL,
    handle text NOT NULL,
    deleted_at timestamptz
);
CREATE UNIQUE INDEX handles_handle ON handles (user_id, handle);
DROP INDEX handles_handle; -- want: unique-dropped "handles.handles_handle \(user_id, handle\): the unique index is dropped"
CREATE UNIQUE INDEX handles_live ON handles (user_id, handle) WHERE deleted_at IS NULL;
