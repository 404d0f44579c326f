CREATE TABLE orgs (id bigint NOT NULL, slug text NOT NULL);
CREATE UNIQUE INDEX orgs_id ON orgs (id);
CREATE TABLE members (org_id bigint NOT NULL, email text NOT NULL, CONSTRAINT members_org FOREIGN KEY (org_id) REFERENCES orgs (id));
CREATE TABLE invites (org_id bigint NOT NULL, token text, CONSTRAINT invites_org FOREIGN KEY (org_id) REFERENCES orgs (id));
