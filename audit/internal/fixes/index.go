package fixes

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/audit/internal/prose"
	"github.com/idemcheck/idemcheck/catalog"
)

// NotDeferrable builds the same key as an immediate index and swaps it in
// for the constraint in one ALTER TABLE: PostgreSQL cannot ALTER CONSTRAINT a
// unique constraint to NOT DEFERRABLE.
func NotDeferrable(names *Namer, t *catalog.Table, ix *catalog.Index) Fix {
	if t.Kind == catalog.Partitioned {
		return notDeferrablePartitioned(t, ix)
	}
	newName := names.Relation(ix.Name, "immediate")
	create := CreateIndex(t, newName, ix.Parts, ix.Include, ix.NullsNotDistinct, catalog.Conjuncts(ix.Predicate))
	kind := "UNIQUE"
	if ix.Primary {
		kind = "PRIMARY KEY"
	}
	swap := fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s, ADD CONSTRAINT %s %s USING INDEX %s;", t.DisplayName(),
		catalog.QuoteIdent(ix.Constraint), catalog.QuoteIdent(ix.Constraint), kind, catalog.QuoteIdent(newName))
	return Fix{
		Title: "replace the constraint with a NOT DEFERRABLE one over the same key",
		SQL:   create + "\n" + swap,
		Caveat: "Code that relied on deferring the check (reordering rows inside a transaction) then fails at the " +
			"statement that creates the temporary duplicate. The swap fails while a foreign key references the " +
			"constraint: drop the foreign key first and add it back after. " + BuildNote(t),
		NoTransaction: CanBuildConcurrently(t),
	}
}

// notDeferrablePartitioned re-adds the constraint in one ALTER TABLE: a
// partitioned table cannot take a constraint USING INDEX.
func notDeferrablePartitioned(t *catalog.Table, ix *catalog.Index) Fix {
	kind := "UNIQUE"
	if ix.Primary {
		kind = "PRIMARY KEY"
	} else if ix.NullsNotDistinct {
		kind += " NULLS NOT DISTINCT"
	}
	name := catalog.QuoteIdent(ix.Constraint)
	return Fix{
		Title: "re-add the constraint NOT DEFERRABLE",
		SQL: fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s, ADD CONSTRAINT %s %s (%s);", t.DisplayName(), name, name,
			kind, strings.Join(PartSQL(ix.Parts), ", ")),
		Caveat: "Rebuilds the index on every partition while holding a lock that blocks writes; code that relied on " +
			"deferring the check then fails at the statement that creates the temporary duplicate.",
		Precheck: DuplicateRows(t, ix),
	}
}

// RebuildInvalid rebuilds the index after the duplicates are gone, or
// drops it. A partitioned parent is fixed by attaching partition indexes.
func RebuildInvalid(t *catalog.Table, ix *catalog.Index) []Fix {
	name := QualifiedIndex(t, ix.Name)
	if t.Kind == catalog.Partitioned {
		return []Fix{{
			Title:  "attach each partition's matching unique index",
			SQL:    fmt.Sprintf("ALTER INDEX %s ATTACH PARTITION <schema>.<partition_index>;", name),
			Caveat: "every partition needs a matching unique index first; the parent becomes valid when the last one is attached",
		}}
	}
	precheck := DuplicateRows(t, ix)
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

// DuplicateRows lists the groups of rows that share every key part among
// the rows the index covers: what makes the build fail.
func DuplicateRows(t *catalog.Table, ix *catalog.Index) string {
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

// UniqueKey is a unique index over part, the key column col with the scope
// a rule chose for it (perhaps none); the caveat says to scope it when keys
// are only unique per account.
func UniqueKey(names *Namer, t *catalog.Table, col *catalog.Column, part []catalog.IndexPart) Fix {
	name := names.Relation(t.Name+"_"+JoinWords(part), "key")
	ix := &catalog.Index{Parts: part}
	// A nullable key gets "unique when present", which says what a unique
	// index over it would do anyway.
	var where []catalog.Expr
	if !col.IsNotNull() {
		where = []catalog.Expr{&catalog.NullTest{Arg: &catalog.ColumnRef{Name: col.Name}}}
	}
	return Fix{
		Title: "add a unique index over " + prose.List(prose.Parts(part), "and"),
		SQL:   CreateIndex(t, name, part, nil, false, where),
		Caveat: "When keys are only unique per account or tenant, put that column first in the index. Make the key " +
			"NOT NULL too, or rows without one are never duplicates. " + BuildNote(t),
		Precheck:      DuplicateRows(t, ix),
		NoTransaction: CanBuildConcurrently(t),
	}
}

// ParentIndex creates the index on the parent; PostgreSQL adopts each
// partition's equivalent index instead of building another.
func ParentIndex(names *Namer, parent *catalog.Table, ix *catalog.Index) Fix {
	name := names.Relation(parent.Name+"_"+JoinWords(ix.Parts), "key")
	return Fix{
		Title: "create the unique index on the partitioned table " + parent.Name,
		SQL:   CreateIndex(parent, name, ix.Parts, ix.Include, ix.NullsNotDistinct, catalog.Conjuncts(ix.Predicate)),
		Caveat: "PostgreSQL refuses it (0A000) unless the key includes every partition key column; when it cannot, " +
			"keep the key unique in a separate unpartitioned table. " + BuildNote(parent),
		Precheck: DuplicateRows(parent, ix),
	}
}

// WithoutNND recreates the index without the clause and adds the partial
// split over its nullable parts, which gives the same guarantee on every
// version.
func WithoutNND(names *Namer, t *catalog.Table, ix *catalog.Index) Fix {
	plain := *ix
	plain.NullsNotDistinct = false
	h := &Hole{Table: t, Index: &plain}
	for _, part := range ix.Parts {
		if !nullsafe.NullSafe(t, &plain, part, nil).Safe {
			h.Parts = append(h.Parts, part)
		}
	}
	drop := fmt.Sprintf("DROP INDEX %s%s;", Concurrently(t), QualifiedIndex(t, ix.Name))
	if ix.Constraint != "" {
		drop = fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s;", t.DisplayName(), catalog.QuoteIdent(ix.Constraint))
	}
	sql := []string{drop, CreateIndex(t, ix.Name, ix.Parts, ix.Include, false, catalog.Conjuncts(ix.Predicate))}
	title := "create the index without NULLS NOT DISTINCT"
	if len(h.Parts) > 0 {
		split := Split(h, names)
		sql = append(sql, split.SQL)
		title += " and add the partial split for rows where " + prose.List(prose.Parts(h.Parts), "or") + " is NULL"
	}
	f := Fix{
		Title: title,
		SQL:   strings.Join(sql, "\n"),
		Caveat: "Write the migration this way for servers older than 15; the split keeps NULL equal to NULL as the " +
			"clause did. " + BuildNote(t),
		Precheck:      DuplicateRows(t, ix),
		NoTransaction: CanBuildConcurrently(t),
	}
	if len(h.Parts) > 0 {
		f.Precheck = CollisionQuery(h)
	}
	return f
}

// ShapeGap is one point of the idempotency-key pattern a table lacks, as
// the fix closes it: columns to add ("name type"), or, with Unique, NOT NULL
// on the key and a unique index over it.
type ShapeGap struct {
	Columns []string
	Unique  bool
}

// Shape adds what an idempotency table lacks: the columns, and when the key
// has no hole-free unique index, NOT NULL on the key and a unique index
// over it.
func Shape(names *Namer, t *catalog.Table, key *catalog.Column, gaps []ShapeGap) Fix {
	var alters, after []string
	f := Fix{Title: "add what the idempotency table lacks"}
	for _, g := range gaps {
		for _, c := range g.Columns {
			alters = append(alters, "ADD COLUMN "+c)
		}
		if !g.Unique {
			continue
		}
		if !key.IsNotNull() {
			alters = append(alters, "ALTER COLUMN "+catalog.QuoteIdent(key.Name)+" SET NOT NULL")
		}
		part := []catalog.IndexPart{{Column: key.Name}}
		name := names.Relation(t.Name+"_"+key.Name, "key")
		after = append(after, CreateIndex(t, name, part, nil, false, nil))
		f.Precheck = DuplicateRows(t, &catalog.Index{Parts: part})
		f.NoTransaction = CanBuildConcurrently(t)
	}
	var sql []string
	if len(alters) > 0 {
		sql = append(sql, fmt.Sprintf("ALTER TABLE %s\n    %s;", t.DisplayName(), strings.Join(alters, ",\n    ")))
	}
	f.SQL = strings.Join(append(sql, after...), "\n")
	f.Caveat = "The new columns are nullable without a default: adding them takes a brief lock and rewrites nothing. " +
		"The application must fill them: take the lease when it claims the key, store the status code and body when " +
		"it finishes, compare the fingerprint on every retry."
	if f.Precheck != "" {
		f.Caveat += " SET NOT NULL fails while a row has no key, and the index while keys repeat; scope the index per " +
			"account (put that column first) when keys are only unique per account. " + BuildNote(t)
	}
	return f
}
