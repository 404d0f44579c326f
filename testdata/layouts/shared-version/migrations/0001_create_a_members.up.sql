CREATE TABLE members (id bigint PRIMARY KEY, email text NOT NULL);
