-- The near miss of optional-unique/draft_number.sql: one more nullable part,
-- the numbering series (NULL: the default series). An invoice numbered 7 in
-- the default series is still invoice 7, so two of them are duplicates: a
-- hole through series, and through the number beside a series.
CREATE TABLE customers (id bigint PRIMARY KEY);
CREATE TABLE invoices (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    customer_id bigint NOT NULL REFERENCES customers (id),
    series text,
    sequential_id integer,
    CONSTRAINT invoices_number_key UNIQUE (customer_id, series, sequential_id) -- want: nullable-key/warning "^invoices\.invoices_number_key \(customer_id, series, sequential_id\): series and sequential_id may be NULL, so two invoices with the same customer_id and no series \(or no sequential_id\) are both accepted$"
);
