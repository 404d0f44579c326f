CREATE TABLE t7 (id bigint PRIMARY KEY, k text NOT NULL);
