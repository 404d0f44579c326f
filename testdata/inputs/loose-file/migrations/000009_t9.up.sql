CREATE TABLE t9 (id bigint PRIMARY KEY, k text NOT NULL);
