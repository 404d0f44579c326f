-- pg_dump --schema-only --no-owner --no-privileges (PostgreSQL 15) of a
-- database built by these statements; the \restrict lines are left out.
--
--   CREATE TABLE tenants (id bigint PRIMARY KEY);
--   CREATE TABLE events (id bigint NOT NULL, tenant_id bigint NOT NULL REFERENCES tenants,
--       idempotency_key text, created_on date NOT NULL) PARTITION BY RANGE (created_on);
--   CREATE TABLE events_2024 PARTITION OF events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
--   CREATE TABLE events_2025 (id bigint NOT NULL, tenant_id bigint NOT NULL, idempotency_key text,
--       created_on date NOT NULL);
--   ALTER TABLE events_2025 ADD CONSTRAINT events_2025_own_pkey PRIMARY KEY (id, created_on);
--   ALTER TABLE events_2025 ADD CONSTRAINT events_2025_own_key UNIQUE (tenant_id, idempotency_key, created_on);
--   ALTER TABLE events ATTACH PARTITION events_2025 FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
--   ALTER TABLE events ADD PRIMARY KEY (id, created_on);
--   ALTER TABLE events ADD CONSTRAINT events_tenant_key UNIQUE (tenant_id, idempotency_key, created_on);
--   CREATE TABLE ledger (entry_id bigint NOT NULL, booked_on date NOT NULL, ref text)
--       PARTITION BY LIST (booked_on);
--   CREATE TABLE ledger_a PARTITION OF ledger FOR VALUES IN ('2024-01-01');
--   ALTER TABLE ledger ADD UNIQUE (ref, booked_on);
--
-- The dump adds each key to the partitioned parent ONLY, where it stays
-- invalid, then to each partition, then attaches the partitions' indexes to
-- the parent's, which makes it valid.
--
-- PostgreSQL database dump
--


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

SET default_tablespace = '';

--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    id bigint NOT NULL,
    tenant_id bigint NOT NULL,
    idempotency_key text,
    created_on date NOT NULL
)
PARTITION BY RANGE (created_on);


SET default_table_access_method = heap;

--
-- Name: events_2024; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events_2024 (
    id bigint NOT NULL,
    tenant_id bigint NOT NULL,
    idempotency_key text,
    created_on date NOT NULL
);


--
-- Name: events_2025; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events_2025 (
    id bigint NOT NULL,
    tenant_id bigint NOT NULL,
    idempotency_key text,
    created_on date NOT NULL
);


--
-- Name: ledger; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ledger (
    entry_id bigint NOT NULL,
    booked_on date NOT NULL,
    ref text
)
PARTITION BY LIST (booked_on);


--
-- Name: ledger_a; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.ledger_a (
    entry_id bigint NOT NULL,
    booked_on date NOT NULL,
    ref text
);


--
-- Name: tenants; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tenants (
    id bigint NOT NULL
);


--
-- Name: events_2024; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ATTACH PARTITION public.events_2024 FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');


--
-- Name: events_2025; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ATTACH PARTITION public.events_2025 FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');


--
-- Name: ledger_a; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger ATTACH PARTITION public.ledger_a FOR VALUES IN ('2024-01-01');


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id, created_on);


--
-- Name: events_2024 events_2024_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events_2024
    ADD CONSTRAINT events_2024_pkey PRIMARY KEY (id, created_on);


--
-- Name: events events_tenant_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_tenant_key UNIQUE (tenant_id, idempotency_key, created_on);


--
-- Name: events_2024 events_2024_tenant_id_idempotency_key_created_on_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events_2024
    ADD CONSTRAINT events_2024_tenant_id_idempotency_key_created_on_key UNIQUE (tenant_id, idempotency_key, created_on);


--
-- Name: events_2025 events_2025_own_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events_2025
    ADD CONSTRAINT events_2025_own_key UNIQUE (tenant_id, idempotency_key, created_on);


--
-- Name: events_2025 events_2025_own_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events_2025
    ADD CONSTRAINT events_2025_own_pkey PRIMARY KEY (id, created_on);


--
-- Name: ledger ledger_ref_booked_on_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger
    ADD CONSTRAINT ledger_ref_booked_on_key UNIQUE (ref, booked_on);


--
-- Name: ledger_a ledger_a_ref_booked_on_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.ledger_a
    ADD CONSTRAINT ledger_a_ref_booked_on_key UNIQUE (ref, booked_on);


--
-- Name: tenants tenants_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tenants
    ADD CONSTRAINT tenants_pkey PRIMARY KEY (id);


--
-- Name: events_2024_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_pkey ATTACH PARTITION public.events_2024_pkey;


--
-- Name: events_2024_tenant_id_idempotency_key_created_on_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_tenant_key ATTACH PARTITION public.events_2024_tenant_id_idempotency_key_created_on_key;


--
-- Name: events_2025_own_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_tenant_key ATTACH PARTITION public.events_2025_own_key;


--
-- Name: events_2025_own_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.events_pkey ATTACH PARTITION public.events_2025_own_pkey;


--
-- Name: ledger_a_ref_booked_on_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.ledger_ref_booked_on_key ATTACH PARTITION public.ledger_a_ref_booked_on_key;


--
-- Name: events events_tenant_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.events
    ADD CONSTRAINT events_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES public.tenants(id);


--
-- PostgreSQL database dump complete
--


