-- pg-version: 14
-- Positive: NULLS NOT DISTINCT on a target older than 15, as an index and as
-- a constraint.
CREATE TABLE events (
    organization_id bigint NOT NULL,
    external_id text
);
CREATE UNIQUE INDEX events_dedupe ON events (organization_id, external_id) NULLS NOT DISTINCT; -- want: nnd-unsupported "^events.events_dedupe \(organization_id, external_id\): NULLS NOT DISTINCT needs PostgreSQL 15 or later, but the target is PostgreSQL 14: the statement fails there"

CREATE TABLE seats (
    org_id bigint NOT NULL,
    team_id bigint,
    email text,
    CONSTRAINT seats_email UNIQUE NULLS NOT DISTINCT (org_id, team_id, email) -- want: nnd-unsupported "seats.seats_email \(org_id, team_id, email\): NULLS NOT DISTINCT needs PostgreSQL 15"
);

-- Positive: no key part may be NULL, but the clause still fails on 14.
CREATE TABLE tokens (
    token text NOT NULL
);
CREATE UNIQUE INDEX tokens_token ON tokens (token) NULLS NOT DISTINCT; -- want: nnd-unsupported "tokens.tokens_token \(token\)"

-- Silent: plain unique indexes work on every version.
CREATE TABLE users (
    id bigint PRIMARY KEY,
    email text NOT NULL UNIQUE
);
