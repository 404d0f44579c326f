CREATE TABLE fx1 (id bigint PRIMARY KEY, a int, b text NOT NULL);
CREATE UNIQUE INDEX fx1_ab ON fx1 (a, b);
