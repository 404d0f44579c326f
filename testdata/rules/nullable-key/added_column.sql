-- A column added later without NOT NULL and put in a unique index.
CREATE TABLE invoices (
    customer_id bigint NOT NULL,
    number text NOT NULL
);
ALTER TABLE invoices ADD COLUMN series text;
CREATE UNIQUE INDEX invoices_number ON invoices (customer_id, series, number); -- want: nullable-key "series may be NULL"
