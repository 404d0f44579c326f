-- +migrate Up
CREATE TABLE invoice_lines (
    id serial PRIMARY KEY,
    invoice_id int NOT NULL REFERENCES invoices (id),
    dedupe_key text
);
-- +migrate StatementBegin
CREATE FUNCTION line_count(inv int) RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FROM invoice_lines WHERE invoice_id = inv;
$$;
-- +migrate StatementEnd

-- +migrate Down
DROP TABLE invoice_lines;
