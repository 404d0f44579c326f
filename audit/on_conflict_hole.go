package audit

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/fixes"
	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/audit/internal/prose"
	"github.com/idemcheck/idemcheck/catalog"
)

// OnConflictHole checks INSERT ... ON CONFLICT statements against the
// unique indexes of their table: the arbiter PostgreSQL would infer must
// exist, must not need a predicate the statement leaves out, and must have
// no NULL hole on the conflict columns.
var OnConflictHole = &Rule{
	ID:    "on-conflict-hole",
	Title: "an insert ... on conflict whose arbiter lets the conflict slip",
	Doc: `INSERT ... ON CONFLICT (cols) DO NOTHING / DO UPDATE is the usual way to make an
insert idempotent. It works only through its arbiter: the unique index PostgreSQL
infers from the conflict target. Three things go wrong:

- the arbiter has a hole: when one of the conflict columns is NULL no row ever
  conflicts, so a repeated request inserts a second row instead of doing nothing
  (or fails with a unique violation on another index instead of updating);
- no unique index has exactly the target's columns: PostgreSQL raises 42P10
  ("there is no unique or exclusion constraint matching the ON CONFLICT
  specification") on the first call;
- the only matching index is partial and the target leaves out its WHERE:
  PostgreSQL cannot infer it and raises 42P10 too. Repeat the index predicate in
  ON CONFLICT (cols) WHERE ....

lint reads the statements from the query files named with --queries and from the
.sql files it already reads (sqlc query files, migrations that seed data).`,
	Bad: `CREATE TABLE events (
    organization_id bigint NOT NULL,
    external_subscription_id text,
    transaction_id text NOT NULL,
    UNIQUE (organization_id, external_subscription_id, transaction_id)
);
INSERT INTO events (organization_id, external_subscription_id, transaction_id)
VALUES ($1, $2, $3)
ON CONFLICT (organization_id, external_subscription_id, transaction_id) DO NOTHING;`,
	Good: `CREATE TABLE events (
    organization_id bigint NOT NULL,
    external_subscription_id text,
    transaction_id text NOT NULL,
    UNIQUE NULLS NOT DISTINCT (organization_id, external_subscription_id, transaction_id)
);
INSERT INTO events (organization_id, external_subscription_id, transaction_id)
VALUES ($1, $2, $3)
ON CONFLICT (organization_id, external_subscription_id, transaction_id) DO NOTHING;`,
	Severity: Error,
	Needs:    Migrations,
	Run:      runOnConflictHole,
}

func runOnConflictHole(p *Pass) {
	for _, q := range p.History.Queries {
		t := p.Catalog.ResolveTable(q.Schema, q.Table)
		if t == nil {
			// A table the migrations do not create: nothing to check against.
			continue
		}
		if f, ok := checkConflict(p, t, q); ok {
			p.Report(f)
		}
	}
}

// checkConflict finds the arbiters of q and what is wrong with them.
func checkConflict(p *Pass, t *catalog.Table, q catalog.Query) (Finding, bool) {
	head := conflictHeader(t, q)
	f := Finding{Object: t.QualifiedName(), Pos: q.Pos}
	var arbiters []*catalog.Index
	switch {
	case q.Constraint != "":
		ix := constraintIndex(t, q.Constraint)
		if ix == nil {
			f.Message = fmt.Sprintf("%s: %s has no unique constraint %s, so PostgreSQL raises 42704 on the first call",
				head, t.DisplayName(), catalog.QuoteIdent(q.Constraint))
			return f, true
		}
		arbiters = []*catalog.Index{ix}
	case len(q.Target) == 0:
		// Without a target every unique index is an arbiter; the claim
		// rests on those over the columns the statement writes.
		arbiters = writtenIndexes(t, q)
		if len(arbiters) == 0 {
			return f, false
		}
	default:
		var partial *catalog.Index
		arbiters, partial = inferArbiters(t, q)
		if len(arbiters) == 0 && partial != nil {
			f.Object += "." + partial.Name
			f.Message = fmt.Sprintf("%s: the only unique index over these columns, %s, is partial (WHERE %s) and the "+
				"conflict target does not repeat its predicate, so PostgreSQL cannot use it and raises 42P10 on the first call; "+
				"write ON CONFLICT (%s) WHERE %s",
				head, indexHeader(t, partial), partial.Predicate.String(), strings.Join(fixes.PartSQL(q.Target), ", "), partial.Predicate.String())
			f.Related = []Related{{Pos: partial.Pos, Message: "partial unique index " + partial.Name + " created here"}}
			return f, true
		}
		if len(arbiters) == 0 {
			f.Columns = prose.Parts(q.Target)
			f.Message = fmt.Sprintf("%s: %s has no unique index over exactly (%s), so PostgreSQL raises 42P10 "+
				"(no unique or exclusion constraint matching the ON CONFLICT specification) on the first call",
				head, t.DisplayName(), strings.Join(prose.Parts(q.Target), ", "))
			return f, true
		}
	}
	for _, ix := range arbiters {
		if ix.Deferrable {
			f.Object += "." + ix.Name
			f.Message = fmt.Sprintf("%s: the arbiter %s is DEFERRABLE, and PostgreSQL refuses deferrable constraints as "+
				"ON CONFLICT arbiters (0A000) on the first call", head, indexHeader(t, ix))
			f.Related = []Related{{Pos: ix.Pos, Message: "deferrable constraint " + ix.Name + " created here"}}
			return f, true
		}
	}
	return arbiterHole(p, t, q, arbiters, f, head)
}

// writtenIndexes are the valid unique indexes of t over the columns the
// statement writes or leaves NULL: without a conflict target they are the
// arbiters that can refuse a repeat. A NOT NULL column the statement leaves
// out gets a default, which for a key is a serial id or a random uuid: an
// index over it never sees the same key twice. A nullable column left out
// is NULL, and an index over it is the claim with its hole.
func writtenIndexes(t *catalog.Table, q catalog.Query) []*catalog.Index {
	var out []*catalog.Index
	for _, ix := range t.UniqueIndexes() {
		if !ix.Valid || ix.Deferrable {
			continue
		}
		all := true
		for _, p := range ix.Parts {
			for _, c := range p.Columns() {
				col := t.Column(c)
				if _, written := q.Inserted(t, c); !written && (col == nil || col.IsNotNull()) {
					all = false
				}
			}
		}
		if all {
			out = append(out, ix)
		}
	}
	return out
}

// leftNull reports whether the statement can leave key part p NULL: p may
// be NULL and the statement does not write a constant into every column
// it reads. Usage outranks shape (docs/rules.md): such a statement claims the
// rows where p is NULL, whatever the index alone reads as.
func leftNull(t *catalog.Table, q catalog.Query, ix *catalog.Index, p catalog.IndexPart) bool {
	if nullsafe.NullSafe(t, ix, p, nil).Safe {
		return false
	}
	for _, c := range p.Columns() {
		if v, written := q.Inserted(t, c); !written || v != catalog.ValueNotNull {
			return true
		}
	}
	return len(p.Columns()) == 0
}

// arbiterHole reports the NULL hole of the arbiters: a conflict fires when
// any arbiter sees one, so a single hole-free arbiter is enough.
func arbiterHole(p *Pass, t *catalog.Table, q catalog.Query, arbiters []*catalog.Index, f Finding, head string) (Finding, bool) {
	var nullable []catalog.IndexPart
	var ix *catalog.Index
	for _, a := range arbiters {
		if a.NullsNotDistinct {
			return f, false
		}
		var parts []catalog.IndexPart
		for _, part := range a.Parts {
			if leftNull(t, q, a, part) {
				parts = append(parts, part)
			}
		}
		if len(parts) == 0 {
			return f, false
		}
		if ix == nil {
			ix, nullable = a, parts
		}
	}
	f.Object += "." + ix.Name
	f.Columns = prose.Parts(nullable)
	f.Escape = &Escape{Table: t, Index: ix, Parts: nullable, Query: &q}
	f.Related = []Related{{Pos: ix.Pos, Message: "arbiter " + ix.Name + " created here"}}
	// The statement is where the finding sits; a later migration that
	// opened the arbiter's hole is where it began.
	for _, o := range p.openings(&hole{Table: t, Index: ix, Parts: nullable}) {
		f.Related = append(f.Related, Related{Pos: o.Pos, Message: o.What + " here"})
	}
	outcome := "a repeated request inserts a second row instead of " + conflictAction(q)
	if other := nullsafe.CoveredBy(t, ix, nullable[0]); other != nil {
		outcome = "a repeated request fails with a unique violation (23505) on " + other.Name + " instead of " + conflictAction(q)
	}
	which := "the arbiter"
	if len(q.Target) == 0 && q.Constraint == "" {
		which = "without a conflict target the arbiters are the unique indexes over the columns it writes or leaves NULL, and"
	}
	f.Message = fmt.Sprintf("%s: %s %s lets %s be NULL, and when it is the conflict never fires: %s",
		head, which, indexHeader(t, ix), prose.List(prose.Parts(nullable), "or"), outcome)
	if h := p.tableHoleOf(t, ix); h != nil && h.narrow(true) == nil {
		f.Notes = append(f.Notes, "the index alone reads as unique when present (optional-unique), but this statement "+
			"claims the rows where "+prose.List(prose.Parts(nullable), "or")+" is NULL: usage outranks shape")
	}
	return f, true
}

// inferArbiters returns the unique indexes PostgreSQL infers from the
// conflict target: the same key parts in any order, valid, and, when
// partial, a predicate the target's WHERE implies. partial is a matching
// index that only lacks the predicate.
func inferArbiters(t *catalog.Table, q catalog.Query) (arbiters []*catalog.Index, partial *catalog.Index) {
	where := catalog.Conjuncts(q.Where)
	for _, ix := range t.UniqueIndexes() {
		if !ix.Valid || !sameKey(ix.Parts, q.Target) {
			continue
		}
		if ix.Predicate != nil && !nullsafe.PredicateImplied(ix.Predicate, where) {
			if partial == nil {
				partial = ix
			}
			continue
		}
		arbiters = append(arbiters, ix)
	}
	return arbiters, partial
}

// constraintIndex is the index behind the UNIQUE or PRIMARY KEY constraint
// called name.
func constraintIndex(t *catalog.Table, name string) *catalog.Index {
	for _, ix := range t.UniqueIndexes() {
		if ix.Constraint == name {
			return ix
		}
	}
	return nil
}

// conflictHeader is the statement as people would recognise it.
func conflictHeader(t *catalog.Table, q catalog.Query) string {
	target := ""
	switch {
	case q.Constraint != "":
		target = " ON CONSTRAINT " + catalog.QuoteIdent(q.Constraint)
	case len(q.Target) > 0:
		target = " (" + strings.Join(fixes.PartSQL(q.Target), ", ") + ")"
		if q.Where != nil {
			target += " WHERE " + q.Where.String()
		}
	}
	return "INSERT INTO " + t.DisplayName() + " ... ON CONFLICT" + target + " " + conflictAction(q)
}

func conflictAction(q catalog.Query) string {
	if q.DoUpdate {
		return "DO UPDATE"
	}
	return "DO NOTHING"
}
