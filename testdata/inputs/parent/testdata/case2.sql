CREATE TABLE fx2 (id bigint PRIMARY KEY, a int, b text NOT NULL);
CREATE UNIQUE INDEX fx2_ab ON fx2 (a, b);
