CREATE TABLE t2 (id bigint PRIMARY KEY, k text NOT NULL);
