CREATE TABLE t1 (id bigint PRIMARY KEY, k text NOT NULL);
