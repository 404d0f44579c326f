CREATE TABLE t4 (id bigint PRIMARY KEY, k text NOT NULL);
