-- 1.9 must run before 1.10, which keys this table.
CREATE TABLE signals (namespace_id bytea NOT NULL, workflow_id varchar(255) NOT NULL, request_id varchar(64));
