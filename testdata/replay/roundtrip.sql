-- Replayed by idemcheck and applied to a real PostgreSQL: both catalogs
-- must agree on every column's NOT NULL, every index and every CHECK.
CREATE SCHEMA billing;
SET search_path TO billing, public;

CREATE DOMAIN billing.email AS text NOT NULL;

CREATE TABLE accounts (
    id bigserial PRIMARY KEY,
    email billing.email,
    "Region" text,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE charges (
    id bigint GENERATED ALWAYS AS IDENTITY,
    account_id bigint NOT NULL,
    kind varchar(20) NOT NULL,
    namespace text,
    idempotency_key text,
    amount numeric CHECK (amount > 0),
    CONSTRAINT charges_pk PRIMARY KEY (id),
    UNIQUE (account_id, kind, idempotency_key, namespace)
);

CREATE UNIQUE INDEX CONCURRENTLY charges_split ON charges (account_id, kind, idempotency_key) WHERE namespace IS NULL;
CREATE UNIQUE INDEX ON charges (account_id, lower(idempotency_key)) WHERE kind = 'charge' AND idempotency_key IS NOT NULL;
ALTER TABLE charges ALTER COLUMN kind DROP NOT NULL;
ALTER TABLE charges ADD CONSTRAINT ns_present CHECK (namespace IS NOT NULL) NOT VALID;
ALTER TABLE charges ADD CONSTRAINT key_present CHECK (idempotency_key IS NOT NULL) NOT VALID;
ALTER TABLE charges VALIDATE CONSTRAINT key_present;

CREATE TABLE public.events (
    org_id bigint NOT NULL,
    transaction_id text NOT NULL,
    external_subscription_id text,
    payload jsonb
) PARTITION BY HASH (org_id);
CREATE UNIQUE INDEX index_unique_transaction_id ON public.events (org_id, external_subscription_id, transaction_id);
CREATE TABLE public.events_0 PARTITION OF public.events FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE public.events_1 (LIKE public.events);
CREATE UNIQUE INDEX events_1_own ON public.events_1 (org_id, external_subscription_id, transaction_id);
ALTER TABLE public.events ATTACH PARTITION public.events_1 FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE INDEX ON public.events ((payload->>'type'));

CREATE TABLE subs (id int PRIMARY KEY, feature_id int, privilege_id int,
    CHECK ((feature_id IS NOT NULL) <> (privilege_id IS NOT NULL)));
CREATE TABLE sub_items (LIKE subs INCLUDING ALL, note text);
ALTER TABLE sub_items ADD UNIQUE (id, feature_id), ADD UNIQUE NULLS NOT DISTINCT (id, privilege_id);
ALTER TABLE sub_items RENAME COLUMN note TO memo;
ALTER TABLE sub_items RENAME TO sub_lines;
ALTER INDEX sub_items_id_feature_id_key RENAME TO sub_lines_feature;
CREATE UNIQUE INDEX tmp_memo ON sub_lines (memo, id);
ALTER TABLE sub_lines ADD CONSTRAINT sub_lines_memo UNIQUE USING INDEX tmp_memo;
ALTER TABLE sub_lines ALTER COLUMN memo SET NOT NULL;

CREATE TABLE legacy (a int UNIQUE, b int, c int);
CREATE INDEX ON legacy (b) INCLUDE (c);
ALTER TABLE legacy DROP COLUMN c;
ALTER TABLE legacy SET SCHEMA public;
DROP INDEX IF EXISTS legacy_b_c_idx;
SELECT pg_catalog.set_config('search_path', '', false);
CREATE TABLE public.claims AS SELECT 1 AS id, 'x'::text AS request_id;
CREATE UNIQUE INDEX claims_req ON public.claims (request_id, id) NULLS NOT DISTINCT;
DO $$ BEGIN PERFORM 1; END $$;
ALTER TABLE public.events ADD CHECK (org_id > 0);
ALTER TABLE public.events ADD CONSTRAINT sub_present CHECK (external_subscription_id IS NOT NULL) NOT VALID;
ALTER TABLE public.events VALIDATE CONSTRAINT sub_present;
ALTER TABLE public.events ALTER COLUMN transaction_id DROP NOT NULL;
