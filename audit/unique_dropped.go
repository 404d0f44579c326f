package audit

import (
	"fmt"

	"github.com/idemcheck/idemcheck/catalog"
)

// UniqueDropped flags a migration that drops a unique index or constraint
// without creating one over the same key in the same migration.
var UniqueDropped = &Rule{
	ID:    "unique-dropped",
	Title: "a migration drops a unique index with no replacement",
	Doc: `Dropping a unique index or constraint removes the guarantee at once, for every
writer. Sometimes that is the intent; often the index was meant to be replaced (a
new column order, a partial index, NULLS NOT DISTINCT) and the replacement lives in
a later migration, or never landed. Between the two, duplicates are accepted and
stay in the table.

A unique index also disappears when a column of its key is dropped (DROP COLUMN),
or when a DROP ... CASCADE removes a column it depends on, without the index being
named at all.

Create the replacement first, in the same migration, then drop the old one. On a
live table build it CONCURRENTLY so writes go on.`,
	Bad: `DROP INDEX CONCURRENTLY events_org_tx;
-- the new index is in next week's migration`,
	Good: `CREATE UNIQUE INDEX CONCURRENTLY events_org_tx_nnd ON events (org, tx)
    NULLS NOT DISTINCT;
DROP INDEX CONCURRENTLY events_org_tx;
ALTER INDEX events_org_tx_nnd RENAME TO events_org_tx;`,
	Severity: Warning,
	Needs:    Migrations,
	Run:      runUniqueDropped,
}

func runUniqueDropped(p *Pass) {
	cat := p.Catalog
	hist := newHistory(cat)
	for _, ch := range cat.Changes {
		if !isUniqueDrop(ch) || droppedWithTable(cat, ch) || replacedInMigration(cat, ch) ||
			stillEnforced(cat, hist, ch) {
			continue
		}
		ix := ch.Index
		f := Finding{
			Object:  ch.Schema + "." + ch.Table + "." + ix.Name,
			Columns: ix.PartNames(),
			Message: droppedMessage(cat, ch),
			Pos:     ch.Pos,
		}
		if !ix.Pos.IsZero() {
			f.Related = append(f.Related, Related{Pos: ix.Pos, Message: "unique index " + ix.Name + " created here"})
		}
		p.Report(f)
	}
}

// isUniqueDrop is a change that removed a unique index of its own table (a
// partition's copy goes with its parent's, which reports).
func isUniqueDrop(ch catalog.Change) bool {
	return (ch.Kind == catalog.ChangeDropIndex || ch.Kind == catalog.ChangeDropConstraint) &&
		ch.Index != nil && (ch.Index.Unique || ch.Index.Primary) && ch.Index.ParentIndex == ""
}

// droppedWithTable reports whether the same statement dropped the table:
// no rows are left for the index to protect.
func droppedWithTable(cat *catalog.Catalog, ch catalog.Change) bool {
	for _, other := range cat.Changes {
		if other.Kind == catalog.ChangeDropTable && other.Pos == ch.Pos &&
			other.Table == ch.Table && other.Schema == ch.Schema {
			return true
		}
	}
	return false
}

// replacedInMigration reports whether the migration file that dropped the
// index also creates a unique index on the table over the same key, with
// no predicate or the same one.
func replacedInMigration(cat *catalog.Catalog, drop catalog.Change) bool {
	for _, ch := range cat.Changes {
		if ch.File != drop.File || ch.Table != drop.Table || ch.Schema != drop.Schema || !isIndexCreation(ch) {
			continue
		}
		if ch.Index.Pos == drop.Index.Pos {
			// The dropped index's own creation replaces nothing.
			continue
		}
		if sameKey(ch.Index.Parts, drop.Index.Parts) && protectsSameRows(ch.Index, drop.Index) {
			return true
		}
	}
	return false
}

// protectsSameRows reports whether the replacement's predicate keeps every
// row the dropped index kept duplicates out of: each of its conjuncts is one
// of the dropped predicate's, or says a key part IS NOT NULL, which only
// leaves out rows a plain unique index never protected.
func protectsSameRows(replacement, dropped *catalog.Index) bool {
	had := catalog.Conjuncts(dropped.Predicate)
	for _, c := range catalog.Conjuncts(replacement.Predicate) {
		if predicateImplied(c, had) {
			continue
		}
		nt, ok := normalise(c).(*catalog.NullTest)
		if ok && !nt.IsNull && !dropped.NullsNotDistinct && exprIsKeyPart(nt.Arg, dropped) {
			continue
		}
		return false
	}
	return true
}

func exprIsKeyPart(e catalog.Expr, ix *catalog.Index) bool {
	for _, p := range ix.Parts {
		if catalog.Equal(partExpr(p), e) {
			return true
		}
	}
	return false
}

// stillEnforced reports whether the table still has a unique index, created
// before the drop, over some of the dropped key's parts and without a
// narrower predicate: dropping a redundant index loses nothing.
func stillEnforced(cat *catalog.Catalog, hist history, drop catalog.Change) bool {
	t := cat.ResolveTable(drop.Schema, drop.Table)
	if t == nil {
		return false
	}
	for _, v := range t.UniqueIndexes() {
		if v.Name == drop.Index.Name || !hist.before(v.Pos, drop.Pos) {
			continue
		}
		if v.Predicate != nil && !catalog.Equal(v.Predicate, drop.Index.Predicate) {
			continue
		}
		if partsSubset(v.Parts, drop.Index.Parts) {
			return true
		}
	}
	return false
}

// droppedMessage says what was dropped, by what, and what now gets through.
func droppedMessage(cat *catalog.Catalog, ch catalog.Change) string {
	ix := ch.Index
	what := "unique index"
	switch {
	case ix.Primary:
		what = "primary key"
	case ix.Constraint != "":
		what = "unique constraint"
	}
	how := "is dropped"
	if col := changeAt(cat, ch.Pos, catalog.ChangeDropColumn); col != nil && col.Table == ch.Table {
		how = "goes with the dropped column " + col.Object
	}
	table := catalog.QuoteIdent(ch.Table)
	if ch.Schema != "public" && ch.Schema != "" {
		table = catalog.QuoteIdent(ch.Schema) + "." + table
	}
	return fmt.Sprintf("%s.%s %s: the %s %s and this migration creates no unique index over %s, "+
		"so from here on rows with the same %s are all accepted",
		table, catalog.QuoteIdent(ix.Name), keyWords(ix), what, how, keyWords(ix), englishList(ix.PartNames(), "and"))
}
