-- Materialized views: columns named after the select list (none NOT NULL,
-- as the server records them), unique indexes on them, renames and drops.
-- No INSERT reaches a materialized view, so no rule reports on one; what
-- matters is that they hold names as a live database does.
CREATE TABLE payments (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    external_id text,
    amount numeric NOT NULL
);

CREATE MATERIALIZED VIEW account_totals AS
    SELECT account_id, sum(amount) AS total, count(*) FROM payments GROUP BY account_id;
CREATE UNIQUE INDEX account_totals_account ON account_totals (account_id);

CREATE MATERIALIZED VIEW payment_refs (payment_id, external_id) AS
    SELECT id, external_id FROM payments
    WITH NO DATA;
CREATE UNIQUE INDEX ON payment_refs (external_id);

CREATE MATERIALIZED VIEW payments_copy AS SELECT * FROM payments;
CREATE UNIQUE INDEX ON payments_copy (id);
CREATE INDEX ON payments_copy (account_id, external_id) WHERE external_id IS NOT NULL;
ALTER MATERIALIZED VIEW payments_copy RENAME TO payments_snapshot;
ALTER INDEX payments_copy_id_idx RENAME TO payments_snapshot_id;
ALTER MATERIALIZED VIEW payments_snapshot RENAME COLUMN external_id TO ext_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS account_totals AS SELECT 1 AS one;
DROP MATERIALIZED VIEW account_totals;
CREATE MATERIALIZED VIEW account_totals AS
    SELECT p.*, a.n FROM payments p JOIN (SELECT account_id, count(*) AS n FROM payments GROUP BY 1) a USING (account_id);
CREATE UNIQUE INDEX account_totals_id ON account_totals (id);

-- A table's generated index name steps around the names the views hold.
CREATE TABLE payment (refs_external_id text);
CREATE UNIQUE INDEX ON payment (refs_external_id);
