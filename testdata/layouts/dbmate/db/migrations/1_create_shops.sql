-- migrate:up
CREATE TABLE shops (id bigint PRIMARY KEY, name text NOT NULL);

-- migrate:down
DROP TABLE shops;
