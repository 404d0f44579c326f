CREATE TABLE fx4 (id bigint PRIMARY KEY, a int, b text NOT NULL);
CREATE UNIQUE INDEX fx4_ab ON fx4 (a, b);
