CREATE UNIQUE INDEX invites_token ON invites (org_id, token);
