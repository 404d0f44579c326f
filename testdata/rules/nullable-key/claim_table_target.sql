-- In a claim table a foreign key part is the claimed target, not a scope:
-- a claim without a namespace still claims its invoice, so two of them are
-- one invoice paid twice. The table's name says claim: error.
CREATE TABLE accounts (id bigint PRIMARY KEY);
CREATE TABLE invoices (id bigint PRIMARY KEY);
CREATE TABLE claims (
    id bigserial PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts (id),
    invoice_id bigint NOT NULL REFERENCES invoices (id),
    namespace text,
    UNIQUE (account_id, invoice_id, namespace) -- want: nullable-key/error "namespace may be NULL, so two claims with the same account_id and invoice_id and no namespace are both accepted$"
);

-- The same shape in a table that is not a claim table, under an index name
-- a person chose to say dedupe: the name makes it one.
CREATE TABLE payments (
    id bigserial PRIMARY KEY,
    invoice_id bigint NOT NULL REFERENCES invoices (id),
    namespace text
);
CREATE UNIQUE INDEX payments_dedupe ON payments (invoice_id, namespace); -- want: nullable-key/error "namespace may be NULL, so two payments with the same invoice_id and no namespace are both accepted$"

-- Without either, the foreign key only scopes the row: unique when present.
CREATE TABLE notes (
    id bigserial PRIMARY KEY,
    invoice_id bigint NOT NULL REFERENCES invoices (id),
    namespace text
);
CREATE UNIQUE INDEX notes_invoice_namespace ON notes (invoice_id, namespace); -- want: optional-unique/info "namespace may be NULL, so notes without namespace are not deduplicated within invoice_id"
