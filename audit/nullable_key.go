package audit

import (
	"slices"

	"github.com/idemcheck/idemcheck/audit/internal/prose"
	"github.com/idemcheck/idemcheck/catalog"
)

// NullableKey flags an uncovered hole in a unique index with two or more key
// parts: rows with a NULL key part that still have an identity are never
// duplicates of anything.
var NullableKey = &Rule{
	ID:    "nullable-key",
	Title: "a unique index lets duplicates through a nullable key part",
	Doc: `A unique index compares NULL to NULL as unknown, so any row with a NULL in one of
its key parts is distinct from every other row. When a row with that part NULL still
has an identity in the other key parts, two such rows are duplicates and both are
accepted: the constraint exists, reviews pass, and duplicate charges sail through.

A hole or "unique when present"? Judge each nullable part by what the other key
parts leave the rows where it is NULL:

- a hole (this rule): another part still identifies the row. In
  UNIQUE (account_id, kind, address, namespace) a claim without a namespace is
  still the claim (account_id, kind, address), and two of them are one charge made
  twice. In a claim or dedupe table a foreign key part is the claimed target, so
  it identifies too.
- unique when present (optional-unique, info): the other parts only scope the row
  (foreign keys, parent or tenant ids, an enum, a boolean, a kind or task name).
  UNIQUE (scope_id, name) with an optional name says "a name is unique within its
  scope when there is one"; rows without a name have nothing to deduplicate. An
  identity that may be NULL itself counts as the row's own optional key when the
  part is a parent or a kind and something else scopes the row: in
  UNIQUE (parent_id, parent_step_id, child_key) a run with no parent step keeps
  only a child key it may not have either. The two bounds of a period
  (charges_from, charges_to) are one value.

Structure also shows two holes where only scope is left: a self-reference
(previous_version_id) beside its scope keeps one successor per row, so two rows
without it fork the chain; and a polymorphic reference (source_type, source_id)
with neither set is the scope's own row, such as a user's global setting. When
the rows without a reference still belong to its parent through another column
of the table (an error state for every environment of a project, with
project_id beside environment_id), the message names that column and the fix
keeps those rows apart by it.

Structure decides before names (a foreign key, an enum or boolean type, a CHECK
listing the values); the name lists used where it cannot tell are shown by
idemcheck rules optional-unique.

A key part is safe when the column is NOT NULL, when a validated CHECK rejects NULL
in it (a CHECK passes on NULL, so CHECK (k > 0) does not), when the index's WHERE
clause rejects NULL in it, or when another unique index covers the rows where it is
NULL (the portable split, or the other arm of an exclusive arc). A partial index
WHERE c IS NOT NULL on its own key part c says "unique when present" explicitly and
is silent.

The severity is error in a claim or dedupe table (its name, or an index name a
person chose, says idempot, dedup, duplicat, claim or guard; the words a generated
name such as Prisma's Table_a_b_key takes from its columns do not count) and when a
key part that is never NULL is a request, event or transaction id; warning
otherwise. The nullable part's own name never makes it an error.

The fixes keep NULL meaningful: NULLS NOT DISTINCT first on PostgreSQL 15 and
later, the partial split first below 15, NOT NULL last (first only when inspect
--data finds no row holding NULL in a table of at least 1,000 rows).`,
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
		h := p.holeOf(t, ix).narrow(true)
		if h == nil {
			return
		}
		f := h.finding(p)
		f.Escape = &Escape{Table: t, Index: ix, Parts: h.Parts, Present: h.Optional}
		f.Message = holeMessage(h)
		f.Notes = append(readingNotes(h), f.Notes...)
		f.Fixes = holeFixes(p, h)
		p.Report(f.WithSeverity(holeSeverity(p.Catalog, t, ix)))
	})
}

// readingNotes say why each part is a hole and not "unique when present",
// and which of the index's parts are optional and left alone.
func readingNotes(h *hole) []string {
	var notes []string
	for _, r := range h.Readings {
		name := prose.Part(r.part)
		switch {
		case len(r.arc) > 0:
			notes = append(notes, "a hole, not \"unique when present\": a CHECK makes "+prose.List(r.arc, "or")+
				" non-NULL when "+name+" is NULL, so those rows are of another kind and "+prose.List(r.arc, "and")+
				" identifies them")
		case r.root != "":
			// Both halves of a polymorphic reference give the same reason.
			if note := "a hole, not \"unique when present\": " + r.root; !slices.Contains(notes, note) {
				notes = append(notes, note)
			}
		case r.identity != nil:
			notes = append(notes, "a hole, not \"unique when present\": rows without "+name+" still have "+
				prose.Part(*r.identity)+", "+r.why)
		}
		if len(r.standIns) > 0 {
			notes = append(notes, "rows without "+name+" still belong to their "+prose.List(r.standIns, "and")+
				" (the parent of what "+name+" references), which the key does not name: two of them are duplicates "+
				"only within one "+prose.List(r.standIns, "and")+", so the fix keeps them apart by it")
		}
	}
	if len(h.Optional) > 0 {
		notes = append(notes, prose.List(prose.Parts(h.Optional), "and")+" may be NULL too, unique when present "+
			"(optional-unique); the fixes leave rows without "+prose.List(prose.Parts(h.Optional), "or")+" alone")
	}
	return notes
}
