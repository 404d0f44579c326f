-- A NOT VALID CHECK proves nothing for the rows already there; the message says so.
CREATE TABLE api_clients (
    id bigint PRIMARY KEY,
    client_ref text
);
ALTER TABLE api_clients ADD CONSTRAINT client_ref_present CHECK (client_ref IS NOT NULL) NOT VALID;
CREATE UNIQUE INDEX api_clients_ref ON api_clients (client_ref); -- want: optional-unique "client_ref may be NULL.*\(CHECK client_ref_present is NOT VALID, so it proves nothing for existing rows\)$"
