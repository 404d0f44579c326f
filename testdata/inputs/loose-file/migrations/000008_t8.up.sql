CREATE TABLE t8 (id bigint PRIMARY KEY, k text NOT NULL);
