-- Shares version 0001 with the file before it; both are applied.
CREATE TABLE invites (id bigint PRIMARY KEY, member_id bigint NOT NULL REFERENCES members, request_id text);
CREATE UNIQUE INDEX invites_request_key ON invites (member_id, request_id);
