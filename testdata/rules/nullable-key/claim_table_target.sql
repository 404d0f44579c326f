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

-- Without either, the severity is warning. Re-judged (issue 25): this read
-- as unique when present, but namespace is a scope (the seed's own
-- column), never the row's own optional value: with the invoice beside
-- it, two notes without a namespace are duplicates.
CREATE TABLE notes (
    id bigserial PRIMARY KEY,
    invoice_id bigint NOT NULL REFERENCES invoices (id),
    namespace text
);
CREATE UNIQUE INDEX notes_invoice_namespace ON notes (invoice_id, namespace); -- want: nullable-key/warning "namespace may be NULL, so two notes with the same invoice_id and no namespace are both accepted$" fix "^rebuild notes_invoice_namespace NULLS NOT DISTINCT"

-- Near miss: the row's own optional name beside the invoice is unique when
-- present.
CREATE TABLE attachments (
    id bigserial PRIMARY KEY,
    invoice_id bigint NOT NULL REFERENCES invoices (id),
    file_name text
);
CREATE UNIQUE INDEX attachments_invoice_file_name ON attachments (invoice_id, file_name); -- want: optional-unique/info "file_name may be NULL, so attachments without file_name are not deduplicated within invoice_id"
