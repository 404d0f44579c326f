--
-- PostgreSQL database dump
--

\restrict zd33CZibHZcDqfrMMoWsau6dWKcRxeTbmiq5r0KcMfEjs1UeVze4PFcxHdTI6VH

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: billing; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA billing;


--
-- Name: email; Type: DOMAIN; Schema: billing; Owner: -
--

CREATE DOMAIN billing.email AS text NOT NULL;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: accounts; Type: TABLE; Schema: billing; Owner: -
--

CREATE TABLE billing.accounts (
    id bigint NOT NULL,
    email billing.email,
    "Region" text,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: accounts_id_seq; Type: SEQUENCE; Schema: billing; Owner: -
--

CREATE SEQUENCE billing.accounts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: accounts_id_seq; Type: SEQUENCE OWNED BY; Schema: billing; Owner: -
--

ALTER SEQUENCE billing.accounts_id_seq OWNED BY billing.accounts.id;


--
-- Name: charges; Type: TABLE; Schema: billing; Owner: -
--

CREATE TABLE billing.charges (
    id bigint NOT NULL,
    account_id bigint NOT NULL,
    kind character varying(20),
    namespace text,
    idempotency_key text,
    amount numeric,
    CONSTRAINT charges_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT key_present CHECK ((idempotency_key IS NOT NULL))
);


--
-- Name: charges_id_seq; Type: SEQUENCE; Schema: billing; Owner: -
--

ALTER TABLE billing.charges ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME billing.charges_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: sub_lines; Type: TABLE; Schema: billing; Owner: -
--

CREATE TABLE billing.sub_lines (
    id integer NOT NULL,
    feature_id integer,
    privilege_id integer,
    memo text NOT NULL,
    CONSTRAINT subs_check CHECK (((feature_id IS NOT NULL) <> (privilege_id IS NOT NULL)))
);


--
-- Name: subs; Type: TABLE; Schema: billing; Owner: -
--

CREATE TABLE billing.subs (
    id integer NOT NULL,
    feature_id integer,
    privilege_id integer,
    CONSTRAINT subs_check CHECK (((feature_id IS NOT NULL) <> (privilege_id IS NOT NULL)))
);


--
-- Name: claims; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.claims (
    id integer,
    request_id text
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    org_id bigint NOT NULL,
    transaction_id text,
    external_subscription_id text,
    payload jsonb,
    CONSTRAINT events_org_id_check CHECK ((org_id > 0)),
    CONSTRAINT sub_present CHECK ((external_subscription_id IS NOT NULL))
)
PARTITION BY HASH (org_id);


--
-- Name: events_0; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events_0 (
    org_id bigint NOT NULL,
    transaction_id text,
    external_subscription_id text,
    payload jsonb,
    CONSTRAINT events_org_id_check CHECK ((org_id > 0)),
    CONSTRAINT sub_present CHECK ((external_subscription_id IS NOT NULL))
);


--
-- Name: events_1; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events_1 (
    org_id bigint NOT NULL,
    transaction_id text,
    external_subscription_id text,
    payload jsonb,
    CONSTRAINT events_org_id_check CHECK ((org_id > 0)),
    CONSTRAINT sub_present CHECK ((external_subscription_id IS NOT NULL))
);


--
-- Name: legacy; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.legacy (
    a integer,
    b integer
);


--
-- Name: events_0; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ATTACH PARTITION public.events_0 FOR VALUES WITH (modulus 2, remainder 0);


--
-- Name: events_1; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ATTACH PARTITION public.events_1 FOR VALUES WITH (modulus 2, remainder 1);


--
-- Name: accounts id; Type: DEFAULT; Schema: billing; Owner: -
--

ALTER TABLE ONLY billing.accounts ALTER COLUMN id SET DEFAULT nextval('billing.accounts_id_seq'::regclass);


--
-- Name: accounts accounts_pkey; Type: CONSTRAINT; Schema: billing; Owner: -
--

ALTER TABLE ONLY billing.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);


--
-- Name: charges charges_account_id_kind_idempotency_key_namespace_key; Type: CONSTRAINT; Schema: billing; Owner: -
--

ALTER TABLE ONLY billing.charges
    ADD CONSTRAINT charges_account_id_kind_idempotency_key_namespace_key UNIQUE (account_id, kind, idempotency_key, namespace);


--
-- Name: charges charges_pk; Type: CONSTRAINT; Schema: billing; Owner: -
--

ALTER TABLE ONLY billing.charges
    ADD CONSTRAINT charges_pk PRIMARY KEY (id);


--
-- Name: charges ns_present; Type: CHECK CONSTRAINT; Schema: billing; Owner: -
--

ALTER TABLE billing.charges
    ADD CONSTRAINT ns_present CHECK ((namespace IS NOT NULL)) NOT VALID;


--
-- Name: sub_lines sub_items_id_privilege_id_key; Type: CONSTRAINT; Schema: billing; Owner: -
--

ALTER TABLE ONLY billing.sub_lines
    ADD CONSTRAINT sub_items_id_privilege_id_key UNIQUE NULLS NOT DISTINCT (id, privilege_id);


--
-- Name: sub_lines sub_items_pkey; Type: CONSTRAINT; Schema: billing; Owner: -
--

ALTER TABLE ONLY billing.sub_lines
    ADD CONSTRAINT sub_items_pkey PRIMARY KEY (id);


--
-- Name: sub_lines sub_lines_feature; Type: CONSTRAINT; Schema: billing; Owner: -
--

ALTER TABLE ONLY billing.sub_lines
    ADD CONSTRAINT sub_lines_feature UNIQUE (id, feature_id);


--
-- Name: sub_lines sub_lines_memo; Type: CONSTRAINT; Schema: billing; Owner: -
--

ALTER TABLE ONLY billing.sub_lines
    ADD CONSTRAINT sub_lines_memo UNIQUE (memo, id);


--
-- Name: subs subs_pkey; Type: CONSTRAINT; Schema: billing; Owner: -
--

ALTER TABLE ONLY billing.subs
    ADD CONSTRAINT subs_pkey PRIMARY KEY (id);


--
-- Name: legacy legacy_a_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.legacy
    ADD CONSTRAINT legacy_a_key UNIQUE (a);


--
-- Name: charges_account_id_lower_idx; Type: INDEX; Schema: billing; Owner: -
--

CREATE UNIQUE INDEX charges_account_id_lower_idx ON billing.charges USING btree (account_id, lower(idempotency_key)) WHERE (((kind)::text = 'charge'::text) AND (idempotency_key IS NOT NULL));


--
-- Name: charges_split; Type: INDEX; Schema: billing; Owner: -
--

CREATE UNIQUE INDEX charges_split ON billing.charges USING btree (account_id, kind, idempotency_key) WHERE (namespace IS NULL);


--
-- Name: claims_req; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX claims_req ON public.claims USING btree (request_id, id) NULLS NOT DISTINCT;


--
-- Name: events_expr_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_expr_idx ON ONLY public.events USING btree (((payload ->> 'type'::text)));


--
-- Name: events_0_expr_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_0_expr_idx ON public.events_0 USING btree (((payload ->> 'type'::text)));


--
-- Name: index_unique_transaction_id; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX index_unique_transaction_id ON ONLY public.events USING btree (org_id, external_subscription_id, transaction_id);


--
-- Name: events_0_org_id_external_subscription_id_transaction_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX events_0_org_id_external_subscription_id_transaction_id_idx ON public.events_0 USING btree (org_id, external_subscription_id, transaction_id);


--
-- Name: events_1_expr_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_1_expr_idx ON public.events_1 USING btree (((payload ->> 'type'::text)));


--
-- Name: events_1_own; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX events_1_own ON public.events_1 USING btree (org_id, external_subscription_id, transaction_id);


--
-- Name: events_0_expr_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_expr_idx ATTACH PARTITION public.events_0_expr_idx;


--
-- Name: events_0_org_id_external_subscription_id_transaction_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.index_unique_transaction_id ATTACH PARTITION public.events_0_org_id_external_subscription_id_transaction_id_idx;


--
-- Name: events_1_expr_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_expr_idx ATTACH PARTITION public.events_1_expr_idx;


--
-- Name: events_1_own; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.index_unique_transaction_id ATTACH PARTITION public.events_1_own;


--
-- PostgreSQL database dump complete
--

\unrestrict zd33CZibHZcDqfrMMoWsau6dWKcRxeTbmiq5r0KcMfEjs1UeVze4PFcxHdTI6VH

