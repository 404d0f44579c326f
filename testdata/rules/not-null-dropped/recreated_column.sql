-- Positive: the column is dropped (taking the index with it) and added back
-- without NOT NULL; the index is re-created over the now nullable column.
CREATE TABLE ledger_entries (
    account_id bigint NOT NULL,
    external_ref text NOT NULL
);
CREATE UNIQUE INDEX ledger_entries_ref ON ledger_entries (account_id, external_ref);
ALTER TABLE ledger_entries DROP COLUMN external_ref;
ALTER TABLE ledger_entries ADD COLUMN external_ref text; -- want: not-null-dropped "external_ref is re-created without NOT NULL, which opens a hole in ledger_entries.ledger_entries_ref \(account_id, external_ref\)"
CREATE UNIQUE INDEX ledger_entries_ref ON ledger_entries (account_id, external_ref); -- want: optional-unique "external_ref may be NULL, so ledger_entries without external_ref are not deduplicated within account_id"
