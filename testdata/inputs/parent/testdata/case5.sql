CREATE TABLE fx5 (id bigint PRIMARY KEY, a int, b text NOT NULL);
CREATE UNIQUE INDEX fx5_ab ON fx5 (a, b);
