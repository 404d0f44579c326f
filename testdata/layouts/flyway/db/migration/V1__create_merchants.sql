CREATE TABLE merchants (id bigint PRIMARY KEY, name text NOT NULL);
