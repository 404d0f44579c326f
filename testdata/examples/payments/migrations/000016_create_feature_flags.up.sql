-- Feature flags are per account, or global when account_id is NULL; the
-- partial index keeps global names unique. The seed is meant to be safe to
-- run again, hence ON CONFLICT DO NOTHING.
CREATE TABLE feature_flags (
    name        text NOT NULL,
    account_id  bigint REFERENCES accounts (id),
    enabled     boolean NOT NULL DEFAULT false,
    CONSTRAINT feature_flags_name_account_key UNIQUE (name, account_id)
);

CREATE UNIQUE INDEX feature_flags_global_name_key ON feature_flags (name)
    WHERE account_id IS NULL;

INSERT INTO feature_flags (name, account_id, enabled)
VALUES ('instant_payouts', NULL, false)
ON CONFLICT (name, account_id) DO NOTHING;
