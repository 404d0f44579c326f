package audit

import "github.com/idemcheck/idemcheck/catalog"

// NullableKey flags an uncovered hole in a unique index with two or more key
// parts: rows with a NULL key part are never duplicates of anything.
var NullableKey = &Rule{
	ID:    "nullable-key",
	Title: "a unique index lets duplicates through a nullable key part",
	Doc: `A unique index compares NULL to NULL as unknown, so any row with a NULL in one of
its key parts is distinct from every other row. When a key part of a multi-column
unique index may be NULL, two rows that agree on every other part and leave that
part NULL are both accepted: the constraint exists, reviews pass, and duplicate
charges sail through.

A key part is safe when the column is NOT NULL, when a validated CHECK rejects NULL
in it (a CHECK passes on NULL, so CHECK (k > 0) does not), when the index's WHERE
clause rejects NULL in it, or when another unique index covers the rows where it is
NULL (the portable split, or the other arm of an exclusive arc).

The severity is error when the index, table or a key column is named like an
idempotency or dedupe key, warning otherwise.`,
	Bad: `CREATE TABLE events (
    organization_id bigint NOT NULL,
    external_subscription_id text,
    transaction_id text NOT NULL
);
CREATE UNIQUE INDEX index_unique_transaction_id
    ON events (organization_id, external_subscription_id, transaction_id);`,
	Good: `CREATE TABLE events (
    organization_id bigint NOT NULL,
    external_subscription_id text,
    transaction_id text NOT NULL
);
CREATE UNIQUE INDEX index_unique_transaction_id
    ON events (organization_id, external_subscription_id, transaction_id)
    NULLS NOT DISTINCT;`,
	Severity: Warning,
	Needs:    Either,
	Run:      runNullableKey,
}

func runNullableKey(p *Pass) {
	checkedIndexes(p.Catalog, func(t *catalog.Table, ix *catalog.Index) {
		if len(ix.Parts) < 2 {
			return
		}
		h := findHole(t, ix)
		if h == nil {
			return
		}
		f := h.finding(p)
		f.Message = holeMessage(h)
		f.Fixes = holeFixes(p, h)
		severity := Warning
		if looksLikeIdempotencyKey(t, ix) {
			severity = Error
		}
		p.Report(f.WithSeverity(severity))
	})
}
