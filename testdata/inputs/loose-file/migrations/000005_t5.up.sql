CREATE TABLE t5 (id bigint PRIMARY KEY, k text NOT NULL);
