CREATE TABLE fx6 (id bigint PRIMARY KEY, a int, b text NOT NULL);
CREATE UNIQUE INDEX fx6_ab ON fx6 (a, b);
