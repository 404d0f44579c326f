-- Unique when present: an invoice gets its number per customer when it is
-- finalized; drafts have none.
CREATE TABLE customers (id bigint PRIMARY KEY);
CREATE TABLE invoices (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    customer_id bigint NOT NULL REFERENCES customers (id),
    status text NOT NULL DEFAULT 'draft',
    sequential_id integer,
    CONSTRAINT invoices_customer_id_sequential_id_key UNIQUE (customer_id, sequential_id) -- want: optional-unique/info "^invoices\.invoices_customer_id_sequential_id_key \(customer_id, sequential_id\): sequential_id may be NULL, so invoices without sequential_id are not deduplicated within customer_id; intended when a row may have no sequential_id$"
);
