-- +migrate Up
CREATE TABLE invoices (id serial PRIMARY KEY, number text NOT NULL);

-- +migrate Down
DROP TABLE invoices;
