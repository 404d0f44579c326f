CREATE TABLE fx3 (id bigint PRIMARY KEY, a int, b text NOT NULL);
CREATE UNIQUE INDEX fx3_ab ON fx3 (a, b);
