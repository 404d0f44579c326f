CREATE TABLE shops (id bigint PRIMARY KEY, name text NOT NULL);
