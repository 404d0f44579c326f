CREATE TABLE t3 (id bigint PRIMARY KEY, k text NOT NULL);
