-- Silent: the unique index over live invites is replaced by NULLS NOT
-- DISTINCT over the soft-delete column: live rows all have deleted_at NULL,
-- and NULLs are equal, so live rows stay unique.
CREATE TABLE organisation_invites (
    organisation_id text NOT NULL,
    invitee_email text NOT NULL,
    deleted_at timestamptz
);
CREATE UNIQUE INDEX organisation_invites_invitee_email ON organisation_invites (organisation_id, invitee_email) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX organisation_invites_invitee_email_1 ON organisation_invites (organisation_id, invitee_email, deleted_at) NULLS NOT DISTINCT;
DROP INDEX organisation_invites_invitee_email;
ALTER INDEX organisation_invites_invitee_email_1 RENAME TO organisation_invites_invitee_email;

-- Silent: the same over a full index, with the soft-delete column
-- recognised from another partial index of the table.
CREATE TABLE members (
    org_id bigint NOT NULL,
    user_id bigint NOT NULL,
    deleted_at timestamp
);
CREATE INDEX members_live ON members (org_id) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX members_org_user ON members (org_id, user_id);
DROP INDEX members_org_user;
CREATE UNIQUE INDEX members_org_user_nnd ON members (org_id, user_id, deleted_at) NULLS NOT DISTINCT;

-- Positive: without NULLS NOT DISTINCT every live row has deleted_at NULL
-- and escapes the new index.
CREATE TABLE seats (
    org_id bigint NOT NULL,
    email text NOT NULL,
    deleted_at timestamptz
);
CREATE INDEX seats_live ON seats (org_id) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX seats_org_email ON seats (org_id, email);
DROP INDEX seats_org_email; -- want: unique-dropped "seats.seats_org_email \(org_id, email\): the unique index is dropped and no migration restores"
CREATE UNIQUE INDEX seats_org_email_deleted ON seats (org_id, email, deleted_at); -- want: nullable-key "deleted_at"

-- Info: with no predicate testing it, a nullable timestamp is an ordinary
-- part of the key, and the replacement is a superset.
CREATE TABLE subscriptions (
    customer_id bigint NOT NULL,
    plan text NOT NULL,
    cancelled_at timestamptz
);
CREATE UNIQUE INDEX subscriptions_customer_plan ON subscriptions (customer_id, plan);
DROP INDEX subscriptions_customer_plan; -- want: unique-dropped "uniqueness narrowed to per-cancelled_at"
CREATE UNIQUE INDEX subscriptions_customer_plan_cancelled ON subscriptions (customer_id, plan, cancelled_at) NULLS NOT DISTINCT;
