package audit

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// KeyWithoutUnique flags columns named like an idempotency or dedupe key
// that no unique index has as a key part.
var KeyWithoutUnique = &Rule{
	ID:    "key-without-unique",
	Title: "an idempotency or dedupe key column with no unique index",
	Doc: `A column named idempotency_key, dedup_key, request_id and the like says that a
repeated request must not create a second row. Without a unique index over it the
only thing that says so is application code: SELECT, then INSERT when nothing was
found. Two requests that arrive together both find nothing and both insert.

Give the key a unique index, scoped the way the key is scoped (per account, per
tenant), with every key part NOT NULL, and let the INSERT be the check.`,
	Bad: `CREATE TABLE payments (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL
);
CREATE INDEX payments_idempotency_key ON payments (idempotency_key);`,
	Good: `CREATE TABLE payments (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL,
    idempotency_key text NOT NULL
);
CREATE UNIQUE INDEX payments_idempotency_key ON payments (account_id, idempotency_key);`,
	Severity: Warning,
	Needs:    Either,
	Run:      runKeyWithoutUnique,
}

func runKeyWithoutUnique(p *Pass) {
	for _, t := range p.Catalog.Tables() {
		// A partition has its parent's columns: the parent reports.
		if t.PartitionOf != "" {
			continue
		}
		for _, col := range t.Columns {
			if !namedLikeKey(col.Name) || uniqueOver(t, col.Name) {
				continue
			}
			p.Report(Finding{
				Object:  t.QualifiedName() + "." + col.Name,
				Columns: []string{col.Name},
				Message: fmt.Sprintf("%s.%s is named like an idempotency or dedupe key, but no unique index has it as a key "+
					"part, so two %s with the same %s are both accepted: the uniqueness lives only in an application check",
					t.DisplayName(), catalog.QuoteIdent(col.Name), rowNoun(t), col.Name),
				Pos:   col.Pos,
				Fixes: []Fix{keyIndexFix(p, t, col)},
			})
		}
	}
}

// namedLikeKey reports whether a column name says it holds an idempotency
// or dedupe key.
func namedLikeKey(name string) bool {
	n := strings.ToLower(name)
	if strings.Contains(n, "idempot") || strings.Contains(n, "dedup") {
		return true
	}
	return n == "request_id" || strings.HasSuffix(n, "_request_id")
}

// uniqueOver reports whether some unique index of t has a key part that
// reads column (INCLUDE columns enforce nothing).
func uniqueOver(t *catalog.Table, column string) bool {
	for _, ix := range t.UniqueIndexes() {
		for _, part := range ix.Parts {
			for _, c := range part.Columns() {
				if c == column {
					return true
				}
			}
		}
	}
	return false
}

// keyIndexFix is a unique index over the key alone; the caveat says to scope
// it when keys are only unique per account.
func keyIndexFix(p *Pass, t *catalog.Table, col *catalog.Column) Fix {
	part := keyScope(t, col.Name)
	name := newNamer(p, t).relation(t.Name+"_"+joinWords(part), "key")
	ix := &catalog.Index{Parts: part}
	// A nullable key gets "unique when present", which says what a unique
	// index over it would do anyway.
	var where []catalog.Expr
	if !col.IsNotNull() {
		where = []catalog.Expr{&catalog.NullTest{Arg: &catalog.ColumnRef{Name: col.Name}}}
	}
	return Fix{
		Title: "add a unique index over " + englishList(partList(part), "and"),
		SQL:   createIndexSQL(t, name, part, nil, false, where),
		Caveat: "When keys are only unique per account or tenant, put that column first in the index. Make the key " +
			"NOT NULL too, or rows without one are never duplicates. " + buildNote(t),
		Precheck:      duplicateRowsQuery(t, ix),
		NoTransaction: canBuildConcurrently(t),
	}
}

// scopeNotNull reports whether every part other than the key column is a
// NOT NULL column: a scope that may be NULL would make the new index leak.
func scopeNotNull(t *catalog.Table, parts []catalog.IndexPart, key string) bool {
	for _, p := range parts {
		if c := t.Column(p.Column); p.Column != key && (c == nil || !c.IsNotNull()) {
			return false
		}
	}
	return true
}

// keyScope is the key the fix makes unique: the key parts of a plain index
// that already has the column (the author's own scope, such as account_id
// first), or the column alone.
func keyScope(t *catalog.Table, column string) []catalog.IndexPart {
	for _, ix := range t.Indexes {
		if ix.Unique || ix.Primary || ix.Predicate != nil || !partIn(catalog.IndexPart{Column: column}, ix.Parts) {
			continue
		}
		if allColumns(ix.Parts) && scopeNotNull(t, ix.Parts, column) {
			return append([]catalog.IndexPart(nil), ix.Parts...)
		}
	}
	return []catalog.IndexPart{{Column: column}}
}
