-- The unique index becomes a primary key: dropping it with CASCADE drops the
-- foreign keys that use it, which are then added again under the same names.
DROP INDEX orgs_id CASCADE;
ALTER TABLE orgs ADD PRIMARY KEY (id);
ALTER TABLE members ADD CONSTRAINT members_org FOREIGN KEY (org_id) REFERENCES orgs (id);
ALTER TABLE invites ADD CONSTRAINT invites_org FOREIGN KEY (org_id) REFERENCES orgs (id);
