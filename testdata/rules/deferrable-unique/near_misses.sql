-- Silent: NOT DEFERRABLE said out loud, and the default.
CREATE TABLE receipts (
    store_id bigint NOT NULL,
    receipt_no text NOT NULL,
    CONSTRAINT receipts_no UNIQUE (store_id, receipt_no) NOT DEFERRABLE,
    CONSTRAINT receipts_pkey PRIMARY KEY (store_id, receipt_no) NOT DEFERRABLE INITIALLY IMMEDIATE
);
CREATE TABLE stores (
    id bigint PRIMARY KEY,
    name text NOT NULL UNIQUE
);

-- Silent: a deferrable foreign key is not uniqueness.
CREATE TABLE sales (
    id bigint PRIMARY KEY,
    store_id bigint NOT NULL REFERENCES stores (id) DEFERRABLE INITIALLY DEFERRED
);
