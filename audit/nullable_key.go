package audit

import (
	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
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
has something left in the other key parts, two such rows are duplicates and both are
accepted: the constraint exists, reviews pass, and duplicate charges sail through.

A hole or "unique when present"? Judge each nullable part by what it is, and by
what the other key parts leave the rows where it is NULL:

- a hole (this rule): the part is a reference (a foreign key, an owner id with or
  without its type column, an end of a link row), a scope (a tenant, a namespace,
  a parent), a soft-delete marker or an actor (a tagger, an author, created_by),
  and anything is left beside it: such a part is never the row's own optional
  value. In UNIQUE (account_id, kind, address, namespace) a claim without a
  namespace is still the claim (account_id, kind, address). In a link row
  UNIQUE (user_id, gem_id) the pair is the identity; in an owner key
  UNIQUE (owner_type, owner_id) two rows without an owner pass; a tagging without
  a tagger is still the tag on its record; in UNIQUE (product_id, deleted_at)
  every live row has deleted_at NULL, so the index enforces nothing among live
  rows, also under WHERE deleted_at IS NULL. The row's own attribute is a hole
  when another attribute, an identity, is left beside it (a name beside an email,
  a number beside a series). In a claim or dedupe table a foreign key part is the
  claimed target, so it identifies too.
- unique when present (optional-unique, info): the part is the row's own
  attribute (a name, code, number, key, an id of its own) and the other parts only
  scope it. UNIQUE (scope_id, name) with an optional name. An index of one key
  part. The two bounds of one period (charges_from, charges_to) are one value.

What a part is comes from evidence, strongest first: a foreign key; what the ORM
leaves in the schema (an x_id beside its x_type); a name that matches a table of
the schema through the inflector (person_id and people); a scope word in its stem.
Anything else is the row's own (media_id with no table of that name). A
soft-delete marker is a nullable timestamp or date named deleted_at, discarded_at,
archived_at or removed_at, or the column the table's partial indexes test as the
live-row test; never a name alone. When the rows without a reference still belong
to its parent through another column of the table (an error state for every
environment of a project, with project_id beside environment_id), the message
names that column and the fix keeps those rows apart by it. Beside a twin index
with another nullable reference in the part's place (UNIQUE (conversation_id,
user_id) and UNIQUE (conversation_id, viewer_id)), the rows without the part are
the other kind and only a row with neither escapes: the fix is the CHECK that one
of them is set. The name lists are shown by idemcheck rules optional-unique.

The message says what the evidence is. A hole through a reference the
application may always fill is reached only by a written NULL, and the gate then
rests on the application: "if every ownership has a user_id and a gem_id, declare
them NOT NULL: SELECT count(*) FROM ownerships WHERE user_id IS NULL OR gem_id IS
NULL must be 0". Live, inspect --data settles it: no NULL row says NOT NULL is safe
now; NULL rows that collide say the hole was used, and the finding is an error.

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

The fixes follow the hole's shape. A scope, an actor, an attribute or a plain
reference beside an identity: NULLS NOT DISTINCT first on PostgreSQL 15 and later
(NULL may be a value: "no namespace", "not tied to one lesson"), the partial split
first below 15, NOT NULL last. A link row or an owner key (every key part a
reference): NOT NULL first, with its precheck, since a NULL end links nothing. A
soft-delete marker: a partial unique index over the other parts WHERE deleted_at IS
NULL, swapped in under the old name, then NULLS NOT DISTINCT; never NOT NULL, which
ends soft delete. Beside a part that is unique when present, NULLS NOT DISTINCT is
offered only among the rows where that part is present. Live, with inspect --data
and no NULL in a table of at least 1,000 rows, NOT NULL comes first.`,
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
		var others []string
		for _, p := range h.Index.Parts {
			if !nullsafe.SamePart(p, r.part) {
				others = append(others, prose.Part(p))
			}
		}
		left := prose.List(others, "and")
		switch {
		case len(r.arc) > 0:
			notes = append(notes, "a hole, not \"unique when present\": a CHECK makes "+prose.List(r.arc, "or")+
				" non-NULL when "+name+" is NULL, so those rows are of another kind and "+prose.List(r.arc, "and")+
				" identifies them")
		case r.twin != nil:
			d := prose.Part(otherArm(h.Index, r.twin))
			notes = append(notes, "an exclusive arc nothing declares: "+name+" and "+d+" are two kinds of "+
				rowNoun(h.Table)+", and "+r.twin.Name+" keeps the rows of the other kind unique; only a row with neither "+
				"escapes both, which a CHECK that one of them is set rules out (NOT NULL would break the other kind)")
		case r.what.kind == kindSoftDelete:
			notes = append(notes, "a hole, not \"unique when present\": "+name+" is "+r.what.why+", never the row's own "+
				"optional value: live rows all have it NULL, so the index never compares live rows on "+left)
		case r.identity != nil:
			notes = append(notes, "a hole, not \"unique when present\": rows without "+name+" still have "+
				prose.Part(*r.identity)+", "+r.why)
		case r.what.neverOwn():
			note := "a hole, not \"unique when present\": " + name + " is " + r.what.why + ", never the row's own optional " +
				"value, and rows without it still have " + left
			if h.link() {
				note += " (in a link row or an owner key the parts together are the identity)"
			}
			notes = append(notes, note)
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
