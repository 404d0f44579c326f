-- Silent: the hole is closed by a later SET NOT NULL.
CREATE TABLE receipts (
    store_id bigint NOT NULL,
    number text
);
CREATE UNIQUE INDEX receipts_number ON receipts (store_id, number);
ALTER TABLE receipts ALTER COLUMN number SET NOT NULL;
