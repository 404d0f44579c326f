-- +migrate Up notransaction
CREATE UNIQUE INDEX CONCURRENTLY invoice_lines_dedupe ON invoice_lines (invoice_id, dedupe_key);

-- +migrate Down
DROP INDEX invoice_lines_dedupe;
