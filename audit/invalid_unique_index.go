package audit

import (
	"fmt"
	"strings"

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
				Fixes:   invalidIndexFixes(t, ix),
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

// invalidIndexFixes rebuilds the index after the duplicates are gone, or
// drops it. A partitioned parent is fixed by attaching partition indexes.
func invalidIndexFixes(t *catalog.Table, ix *catalog.Index) []Fix {
	name := qualifiedIndex(t, ix.Name)
	if t.Kind == catalog.Partitioned {
		return []Fix{{
			Title:  "attach each partition's matching unique index",
			SQL:    fmt.Sprintf("ALTER INDEX %s ATTACH PARTITION <schema>.<partition_index>;", name),
			Caveat: "every partition needs a matching unique index first; the parent becomes valid when the last one is attached",
		}}
	}
	precheck := duplicateRowsQuery(t, ix)
	return []Fix{
		{
			Title:         "rebuild the index once no rows collide",
			SQL:           fmt.Sprintf("REINDEX INDEX CONCURRENTLY %s;", name),
			Caveat:        "fails again, leaving another invalid index, while rows that collide exist: resolve them first",
			Precheck:      precheck,
			NoTransaction: true,
		},
		{
			Title:         "drop the index if the uniqueness is not wanted",
			SQL:           fmt.Sprintf("DROP INDEX CONCURRENTLY %s;", name),
			Caveat:        "the table then has no unique index over these columns at all",
			NoTransaction: true,
		},
	}
}

// duplicateRowsQuery lists the groups of rows that share every key part among
// the rows the index covers: what makes the build fail.
func duplicateRowsQuery(t *catalog.Table, ix *catalog.Index) string {
	parts := make([]string, len(ix.Parts))
	for i, part := range ix.Parts {
		parts[i] = part.String()
	}
	keys := strings.Join(parts, ", ")
	var conds []string
	if ix.Predicate != nil {
		conds = append(conds, "("+ix.Predicate.String()+")")
	}
	// Rows with a NULL key part never collide unless NULLS NOT DISTINCT,
	// though GROUP BY would put them together.
	if !ix.NullsNotDistinct {
		for _, part := range parts {
			conds = append(conds, part+" IS NOT NULL")
		}
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	return fmt.Sprintf("SELECT %s, count(*) FROM %s.%s%s GROUP BY %s HAVING count(*) > 1;",
		keys, catalog.QuoteIdent(t.Schema), catalog.QuoteIdent(t.Name), where, keys)
}
