CREATE TABLE t6 (id bigint PRIMARY KEY, k text NOT NULL);
