-- A table outside public is named with its schema.
CREATE SCHEMA billing;
CREATE TABLE billing.wallets (id bigint PRIMARY KEY);
CREATE TABLE billing.credits (
    wallet_id bigint NOT NULL,
    source_id text
);
CREATE UNIQUE INDEX credits_source ON billing.credits (wallet_id, source_id); -- want: optional-unique "^billing\.credits\.credits_source \(wallet_id, source_id\): source_id may be NULL, so credits without source_id"
