-- A generated column holds its expression's value: proved never NULL when
-- the expression is, on both lint and inspect. The two that may be NULL are
-- only scoped by account_id, so they read as unique when present.
CREATE TABLE identities (
    account_id bigint NOT NULL,
    data jsonb NOT NULL,
    external_ref text,
    email_key text GENERATED ALWAYS AS (lower(data ->> 'email')) STORED,
    subject_key text GENERATED ALWAYS AS (COALESCE(data ->> 'sub', 'anonymous')) STORED,
    ref_key text GENERATED ALWAYS AS (COALESCE(external_ref, account_id::text)) STORED,
    upper_ref_key text GENERATED ALWAYS AS (upper(external_ref)) STORED
);
CREATE UNIQUE INDEX identities_subject ON identities (account_id, subject_key);
CREATE UNIQUE INDEX identities_ref ON identities (account_id, ref_key);
CREATE UNIQUE INDEX identities_email ON identities (account_id, email_key); -- want: optional-unique "email_key may be NULL, so identities without email_key are not deduplicated within account_id"
CREATE UNIQUE INDEX identities_upper_ref ON identities (account_id, upper_ref_key); -- want: optional-unique "upper_ref_key may be NULL"
CREATE UNIQUE INDEX identities_upper_ref_present ON identities (account_id, upper_ref_key) WHERE external_ref IS NOT NULL;
