package audit

import (
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/fixes"
	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/audit/internal/prose"
	"github.com/idemcheck/idemcheck/catalog"
)

// OptionalUnique notes a unique index that is unique only when its nullable
// parts are present, which is usually what the author meant: a single
// nullable key part, or nullable parts whose other key parts only scope the
// row.
var OptionalUnique = &Rule{
	ID:    "optional-unique",
	Title: "a unique index is unique only when its nullable parts are present",
	Doc: `A unique index whose nullable key part is the row's own optional value lets any
number of rows without it through, by design: UNIQUE (email) with an optional email,
or UNIQUE (scope_id, name) where "name is optional; when set, it is unique within
the scope". This note is there so the choice is a conscious one; nothing needs to
change when rows without the value are meant to be many.

Unique when present, or a hole? Ask what the nullable part is, then what the other
key parts leave the rows where it is NULL:

- unique when present (this rule): the part is the row's own attribute (a name,
  code, slug, number, key, token, email, external id, a bound of its own period,
  a TRUE/NULL flag) and the other parts only scope it: references, parents,
  tenants, discriminators (an enum, a boolean, a kind/type/status or task-name
  column). UNIQUE (environment_id, task, idempotency_key): a run that supplies no
  key is not deduplicated. UNIQUE (customer_id, sequential_id): drafts have no
  number yet. UNIQUE (repo_id, is_primary) with is_primary TRUE or NULL: at most
  one primary per repo. An index of one key part is this too, and so is a
  reference the schema declares the row's optional link: its foreign key is ON
  DELETE SET NULL and every other key part is a NOT NULL reference the row is
  deleted with (ON DELETE CASCADE), as for accounts linked to a user once there
  is one, UNIQUE (auth_method_id, user_id).
- a hole (nullable-key): the part is a reference (a foreign key, an owner id with
  or without its type column, an end of a link row), a scope (a tenant, a
  namespace, a parent), a soft-delete marker or an actor (a tagger, an author,
  created_by), and anything is left beside it; such a part is never the row's own
  optional value. In UNIQUE (account_id, kind, address, namespace) a claim without
  a namespace is still the claim. In a link row UNIQUE (user_id, gem_id) the pair
  is the identity;
  in UNIQUE (product_id, deleted_at) every live row has deleted_at NULL, so the
  index enforces nothing among live rows. The row's own attribute is a hole too
  when another attribute, an identity, is left beside it (a name beside an email).

What a part is comes from evidence, strongest first: a foreign key in the catalog;
what the ORM leaves in the schema (an x_id beside its x_type); a name that matches a
table of the schema through the inflector ActiveSupport's rules give (person_id and
people, status_id and statuses); a scope word in its stem (scope_id, tenant_id).
Anything else is the row's own: media_id with no table of that name is the row's
own id. A soft-delete marker is a nullable timestamp or date named deleted_at,
discarded_at, archived_at or removed_at, or the column the table's partial indexes
test as the live-row test (WHERE voided_at IS NULL); never a name alone.

The message calls intended only what is the row's own attribute: "rows without
name are not deduplicated within scope_id". Usage outranks shape: an INSERT ... ON
CONFLICT claim that can leave the part NULL is a hole whatever the index alone
reads as (on-conflict-hole).

To state the intent, write the partial form: CREATE UNIQUE INDEX ... WHERE name IS
NOT NULL is explicit and silent. In an existing schema, an ignore comment with a
reason does the same. Live, inspect --data counts the rows without the value; when
none does in a table of at least 1,000 rows, the note suggests NOT NULL. When the
optional part is an idempotency key, the note also describes the other design: a
fallback key (the action and its target) instead of NULL, so the gate never depends
on NULL semantics.

` + uniqueWhenPresentWords(),
	Bad: `CREATE TABLE users (
    id bigint PRIMARY KEY,
    external_ref text
);
CREATE UNIQUE INDEX users_external_ref ON users (external_ref);`,
	Good: `CREATE TABLE users (
    id bigint PRIMARY KEY,
    external_ref text
);
CREATE UNIQUE INDEX users_external_ref ON users (external_ref)
    WHERE external_ref IS NOT NULL;`,
	Severity: Info,
	Needs:    Either,
	Run:      runOptionalUnique,
}

func runOptionalUnique(p *Pass) {
	checkedIndexes(p.Catalog, func(t *catalog.Table, ix *catalog.Index) {
		h := p.holeOf(t, ix).narrow(false)
		if h == nil {
			return
		}
		f := h.finding(p)
		f.Message = optionalMessage(h)
		f.Notes = append(optionalNotes(h), f.Notes...)
		p.Report(f)
	})
}

// optionalMessage says what is deliberate: which rows the index does not
// deduplicate, and when that is intended.
func optionalMessage(h *hole) string {
	if len(h.Index.Parts) == 1 {
		msg := indexHeader(h.Table, h.Index) + ": " + prose.Part(h.Parts[0]) +
			" may be NULL, so the index is unique when present: any number of " +
			rowNoun(h.Table) + " with " + absentWords(h.Parts[0]) + " are accepted"
		if h.Index.Predicate != nil {
			msg += " among rows where " + h.Index.Predicate.String()
		}
		return msg + notValidWords(h.NotValid)
	}
	t, ix := h.Table, h.Index
	names := prose.Parts(h.Parts)
	var without, scope []string
	for _, p := range h.Parts {
		without = append(without, "without "+prose.Part(p))
	}
	for _, p := range ix.Parts {
		if !nullsafe.PartIn(p, h.Parts) {
			scope = append(scope, prose.Part(p))
		}
	}
	var b strings.Builder
	b.WriteString(indexHeader(t, ix) + ": " + prose.List(names, "and") + " may be NULL, so ")
	if ix.Predicate != nil {
		b.WriteString("among rows where " + ix.Predicate.String() + ", ")
	}
	b.WriteString(rowNoun(t) + " " + without[0])
	if len(without) > 1 {
		b.WriteString(" (or " + strings.Join(without[1:], ", or ") + ")")
	}
	b.WriteString(" are not deduplicated")
	if len(scope) > 0 {
		b.WriteString(" within " + prose.List(scope, "and"))
	}
	b.WriteString("; " + intendedWords(h, scope))
	b.WriteString(notValidWords(h.NotValid))
	return b.String()
}

// intendedWords says when leaving rows without the part undeduplicated is
// what the author meant.
func intendedWords(h *hole, scope []string) string {
	c := h.Parts[0]
	col := h.Table.Column(c.Column)
	switch {
	case len(h.Parts) == 1 && col != nil && booleanColumn(h.cat, col) && len(scope) > 0:
		return "intended when " + c.Column + " is TRUE or NULL: then at most one row per " +
			prose.List(scope, "and") + " has it TRUE"
	case len(h.Parts) == 1 && optionalKey(c):
		return "intended when a request that supplies no " + prose.Part(c) + " is not meant to be deduplicated " +
			"(if every one must be, derive a fallback key from the action and its target instead of NULL)"
	}
	return "intended when a row may have no " + prose.List(prose.Parts(h.Parts), "or")
}

// optionalKey reports whether the part is itself an idempotency or dedupe
// key.
func optionalKey(p catalog.IndexPart) bool {
	for _, c := range p.Columns() {
		if containsAny(c, idempotencyKeyWords) {
			return true
		}
	}
	return false
}

// optionalNotes give the evidence for the reading, what to do when the
// choice is deliberate, and, for an optional idempotency key, the other
// design.
func optionalNotes(h *hole) []string {
	t, ix := h.Table, h.Index
	names := prose.List(prose.Parts(h.Parts), "or")
	var notes []string
	if len(ix.Parts) > 1 {
		claim := claimTable(t)
		var why []string
		for _, p := range ix.Parts {
			if nullsafe.PartIn(p, h.Parts) {
				continue
			}
			why = append(why, prose.Part(p)+" is "+kindOf(h.cat, t, ix, p, claim).why)
		}
		if len(why) > 0 {
			notes = append(notes, "read as unique when present because the other key parts only scope the row: "+
				strings.Join(why, "; "))
		}
	}
	notes = append(notes, "nothing needs to change when "+rowNoun(t)+" without "+names+" are meant to be many; "+
		"say so with -- idemcheck:ignore optional-unique <reason>, or, in a new schema, with the partial form "+
		"WHERE "+presentWords(h.Parts)+", which reads as intent and is silent")
	for _, p := range h.Parts {
		if optionalKey(p) {
			notes = append(notes, "if every request must be deduplicated, derive a fallback key (the action and its "+
				"target) instead of leaving "+prose.Part(p)+" NULL, and make it NOT NULL: the gate then never depends on "+
				"NULL semantics")
		}
	}
	return notes
}

// presentWords is "a IS NOT NULL AND b IS NOT NULL" for the parts.
func presentWords(parts []catalog.IndexPart) string {
	var conj []catalog.Expr
	for _, p := range parts {
		conj = append(conj, &catalog.NullTest{Arg: nullsafe.PartExpr(p)})
	}
	return fixes.Where(conj)
}
