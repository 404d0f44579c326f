--
-- PostgreSQL database dump
--

\restrict 8vQeKq2cXh0mW1dT5p

-- Dumped from database version 15.6
-- Dumped by pg_dump version 15.6

SET statement_timeout = 0;
SET lock_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;

--
-- Name: billing; Type: SCHEMA; Schema: -; Owner: app
--

CREATE SCHEMA billing;


ALTER SCHEMA billing OWNER TO :"owner";

--
-- Name: subscriptions; Type: TABLE; Schema: billing; Owner: app
--

CREATE TABLE billing.subscriptions (
    id bigint NOT NULL,
    account_id bigint NOT NULL,
    external_subscription_id text
);

--
-- Data for Name: subscriptions; Type: TABLE DATA; Schema: billing; Owner: app
--

COPY billing.subscriptions (id, account_id, external_subscription_id) FROM stdin;
1	10	sub_1
2	10	\N
\.


--
-- Name: subscriptions subscriptions_pkey; Type: CONSTRAINT; Schema: billing; Owner: app
--

ALTER TABLE ONLY billing.subscriptions
    ADD CONSTRAINT subscriptions_pkey PRIMARY KEY (id);


--
-- Name: subscriptions_external; Type: INDEX; Schema: billing; Owner: app
--

CREATE UNIQUE INDEX subscriptions_external ON billing.subscriptions USING btree (account_id, external_subscription_id);


--
-- PostgreSQL database dump complete
--

\unrestrict 8vQeKq2cXh0mW1dT5p

