-- Excluded by the configuration: its hole is not reported.
CREATE TABLE seeds (a bigint NOT NULL, b bigint);
CREATE UNIQUE INDEX seeds_key ON seeds (a, b);
