package audit

import (
	"github.com/idemcheck/idemcheck/audit/internal/fixes"
	"github.com/idemcheck/idemcheck/catalog"
)

// InvalidUniqueIndex flags unique indexes the server does not trust: a failed
// CREATE UNIQUE INDEX CONCURRENTLY leaves one behind that never checked the
// rows already there. Only a live catalog knows about them.
var InvalidUniqueIndex = &Rule{
	ID:    "invalid-unique-index",
	Title: "unique index that is not valid or not ready",
	Doc: `A unique index built with CREATE UNIQUE INDEX CONCURRENTLY that failed (most
often because rows already collide) stays behind, marked not valid. The rows
that existed during the build were never checked, queries do not use it, and
INSERT ... ON CONFLICT cannot use it as an arbiter, yet the schema looks as if
the uniqueness were there. An index that is not even ready (a build or a DROP
INDEX CONCURRENTLY that died early) enforces nothing at all.

A partitioned index created ON ONLY the parent is not valid either until every
partition's index is attached to it.

Find and resolve the colliding rows, then rebuild the index (REINDEX INDEX
CONCURRENTLY) or drop it and create it again.`,
	Bad: `-- two rows share (org, tx): the build fails and leaves an invalid index
CREATE UNIQUE INDEX CONCURRENTLY events_org_tx ON events (org, tx);`,
	Good: `-- remove the duplicates first, then build; check pg_index.indisvalid afterwards
DELETE FROM events a USING events b WHERE a.org = b.org AND a.tx = b.tx AND a.id > b.id;
CREATE UNIQUE INDEX CONCURRENTLY events_org_tx ON events (org, tx);`,
	Severity: Error,
	Needs:    Live,
	Run:      runInvalidUniqueIndex,
}

func runInvalidUniqueIndex(p *Pass) {
	for _, t := range p.Catalog.Tables() {
		for _, ix := range t.UniqueIndexes() {
			if ix.Valid && ix.Ready {
				continue
			}
			// No Columns: the finding is about the whole index, not about
			// key parts that may be NULL, so the NULL data checks do not apply.
			p.Report(Finding{
				Object:  t.QualifiedName() + "." + ix.Name,
				Message: invalidIndexMessage(t, ix),
				Pos:     ix.Pos,
				Fixes:   fixes.RebuildInvalid(t, ix),
			})
		}
	}
}

func invalidIndexMessage(t *catalog.Table, ix *catalog.Index) string {
	head := indexHeader(t, ix) + ": "
	switch {
	case !ix.Ready:
		return head + "the index is not ready: its build or removal stopped early, so it " +
			"enforces nothing and duplicates are accepted"
	case t.Kind == catalog.Partitioned:
		return head + "the partitioned index is not valid: some partitions have no index " +
			"attached to it (ALTER INDEX ... ATTACH PARTITION), so duplicates within those partitions are accepted"
	}
	return head + "the index is not valid: a concurrent build failed (often on rows that already " +
		"collide), so the rows that existed then were never checked and ON CONFLICT cannot use it as an arbiter"
}
