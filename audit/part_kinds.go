package audit

import (
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/inflect"
)

// This file says what a key part is (docs/rules.md, "Unique when
// present"): the row's own attribute, a discriminator, a reference to
// another row, a scope, an actor or a soft-delete marker. The evidence is
// read strongest first: a foreign key in the catalog, then what the ORM
// leaves in the schema (an x_id beside its x_type), then a name that
// matches a table of the schema through the inflector, then a scope word;
// anything else is the row's own.

// partKind is what a key part is for the rows of its index.
type partKind int

const (
	// kindAttribute is the row's own: a name, code, number, key, token,
	// email, an id of its own (media_id within its origin server), a date.
	kindAttribute partKind = iota
	// kindDiscriminator sorts rows into a few kinds: an enum, a boolean, a
	// CHECK listing the values, a kind/type/status or task-name column.
	kindDiscriminator
	// kindReference points at another row: a foreign key, a polymorphic
	// x_id or its x_type, a name that matches a table.
	kindReference
	// kindScope places the row under a tenant, namespace or parent.
	kindScope
	// kindActor credits the row to someone: a tagger, an author,
	// created_by.
	kindActor
	// kindSoftDelete is the time a row was deleted: NULL on every live row.
	kindSoftDelete
)

// part is one key part as "Unique when present" reads it, with the
// evidence in words that fit "c is <why>".
type part struct {
	kind partKind
	why  string
	// ref is set when the part points at another row (a foreign key, a
	// polymorphic pair, a table's name), whatever its kind: a key of refs
	// only is a link row or an owner key.
	ref bool
	// claimed is set for a reference that identifies the row because the
	// table is a claim or dedupe table: the claimed target.
	claimed bool
}

// scopeOnly reports whether the part only scopes a row beside another
// part: a reference, a scope, a discriminator or an actor, never the
// claimed target of a claim table.
func (p part) scopeOnly() bool {
	return !p.claimed && p.kind != kindAttribute && p.kind != kindSoftDelete
}

// neverOwn reports whether a nullable part of this kind can never be the
// row's own optional value: a reference, a scope, an actor or a marker.
func (p part) neverOwn() bool { return p.kind >= kindReference || p.claimed }

// kindOf judges one key part of ix in table t. cat may be nil (the table
// alone is read): then no name is matched against the schema's tables.
func kindOf(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index, p catalog.IndexPart, claim bool) part {
	col := p.Column
	if col == "" {
		cols := p.Columns()
		if len(cols) == 0 {
			return part{kind: kindDiscriminator, why: "a constant"}
		}
		if len(cols) > 1 {
			return part{kind: kindAttribute, why: "an expression over several columns"}
		}
		col = cols[0]
	}
	words := nameWords(col)
	c := t.Column(col)
	if c != nil && softDeleteMarker(cat, t, c) {
		return part{kind: kindSoftDelete, why: "a soft-delete marker (a nullable " + c.Type + " that is NULL on every live row)"}
	}
	claimed := func(pr part) part {
		if claim && pr.ref {
			pr.claimed = true
			pr.why = "the claimed target in a claim table (" + pr.why + ")"
		}
		return pr
	}
	if fk := t.ForeignKeyOn(col); fk != nil {
		return claimed(refPart(cat, words, refWords(fk), refTableName(fk)))
	}
	if pair := polymorphicPartner(t, col); pair != "" {
		if last := words[len(words)-1]; last == "type" {
			pr := refPart(cat, words[:len(words)-1], "the type half of the polymorphic reference "+
				strings.Join(words[:len(words)-1], "_")+" (beside "+pair+")", "")
			return claimed(pr)
		}
		return claimed(refPart(cat, words, "a polymorphic reference (beside "+pair+")", ""))
	}
	if c != nil {
		switch {
		case c.Enum:
			return part{kind: kindDiscriminator, why: "an enum"}
		case booleanColumn(cat, c):
			return part{kind: kindDiscriminator, why: "a boolean"}
		case listedValues(t, col):
			return part{kind: kindDiscriminator, why: "limited by a CHECK to a few values"}
		}
	}
	if cat != nil {
		if ref, ok := namedReference(cat, t, col); ok && ref != nil {
			return claimed(refPart(cat, words, "named after the table "+ref.Name, ref.Name))
		}
	}
	switch {
	case actorName(words):
		return part{kind: kindActor, why: "who the row is credited to (named like an actor)"}
	case discriminatorName(words):
		return part{kind: kindDiscriminator, why: "named like a kind"}
	case scopeName(words):
		pr := part{kind: kindScope, why: "named like a parent or tenant"}
		if claim {
			pr.claimed, pr.why = true, "the claimed target in a claim table (named like a parent or tenant)"
		}
		return pr
	}
	return part{kind: kindAttribute, why: "an identity value"}
}

// refPart is a reference named by words, with the evidence why: a scope
// when its stem or its target is a scope word (a tenant, a parent), an
// actor when its stem names one, a reference otherwise.
func refPart(cat *catalog.Catalog, words []string, why, target string) part {
	stem := words
	if len(words) > 1 && slices.Contains(referenceSuffixes, words[len(words)-1]) {
		stem = words[:len(words)-1]
	}
	switch {
	case actorName(stem):
		return part{kind: kindActor, ref: true, why: why + ", credited to someone (named like an actor)"}
	case scopeName(stem) || (target != "" && scopeName(nameWords(inflect.Singular(target)))):
		return part{kind: kindScope, ref: true, why: why + ", a parent or tenant"}
	}
	return part{kind: kindReference, ref: true, why: why}
}

// refTableName is the unqualified table a foreign key points at.
func refTableName(fk *catalog.ForeignKey) string {
	ref := fk.RefTable
	if i := strings.LastIndexByte(ref, '.'); i >= 0 {
		ref = ref[i+1:]
	}
	return ref
}

// polymorphicPartner returns the column that makes col half of a
// polymorphic reference: {x}_type for {x}_id and the other way round
// (sourceType and sourceId), when t has it; "" otherwise.
func polymorphicPartner(t *catalog.Table, col string) string {
	words := nameWords(col)
	if len(words) < 2 {
		return ""
	}
	want := map[string]string{"type": "id", "id": "type"}[words[len(words)-1]]
	if want == "" {
		return ""
	}
	stem := strings.Join(words[:len(words)-1], " ")
	for _, other := range t.Columns {
		w := nameWords(other.Name)
		if other.Name != col && len(w) >= 2 && w[len(w)-1] == want && strings.Join(w[:len(w)-1], " ") == stem {
			return other.Name
		}
	}
	return ""
}

// namedReference is referencedTable without the declared foreign keys
// (which kindOf reads first): a table of the schema that the column's name
// points at through the inflector (person_id, people).
func namedReference(cat *catalog.Catalog, t *catalog.Table, column string) (*catalog.Table, bool) {
	words := nameWords(column)
	if len(words) < 2 || !slices.Contains(referenceSuffixes, words[len(words)-1]) {
		return nil, false
	}
	return referencedTable(cat, t, column)
}

// scopeName reports whether a name's last word is a scope word (a tenant, a
// namespace, a parent), or its next-to-last before an id suffix.
func scopeName(words []string) bool {
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if len(words) > 1 && slices.Contains(referenceSuffixes, last) {
		last = words[len(words)-2]
	}
	return slices.Contains(scopeWords, last)
}

// actorName reports whether a name credits the row to someone: its last
// word (before an id suffix) is an actor word (tagger, author), or it says
// who did something (created_by, approved_by_id).
func actorName(words []string) bool {
	if len(words) == 0 {
		return false
	}
	w := words
	if len(w) > 1 && slices.Contains(referenceSuffixes, w[len(w)-1]) {
		w = w[:len(w)-1]
	}
	last := w[len(w)-1]
	return slices.Contains(actorWords, last) || (len(w) > 1 && last == "by")
}

// softDeleteMarker reports whether col is a soft-delete marker: a nullable
// timestamp or date that is named as one (deleted_at, discardedAt) or that
// an index of t tests as the live-row test (WHERE col IS NULL, col no key
// part of that index). A partial index of the portable split, WHERE c IS
// NULL over the rest of a unique index that has c, is not such a test.
func softDeleteMarker(cat *catalog.Catalog, t *catalog.Table, col *catalog.Column) bool {
	if col.IsNotNull() || !timestampColumn(cat, col) {
		return false
	}
	if slices.ContainsFunc(softDeleteNames, func(n string) bool { return squash(n) == squash(col.Name) }) {
		return true
	}
	for _, v := range t.Indexes {
		if !testsIsNull(v.Predicate, col.Name) || nullsafe.PartIn(catalog.IndexPart{Column: col.Name}, v.Parts) {
			continue
		}
		split := false
		for _, u := range t.UniqueIndexes() {
			if u != v && nullsafe.PartIn(catalog.IndexPart{Column: col.Name}, u.Parts) && partsIn(v.Parts, u.Parts) {
				split = true
			}
		}
		if !split {
			return true
		}
	}
	return false
}

// timestampColumn is isTimestamp when the catalog is at hand, the column's
// own type otherwise.
func timestampColumn(cat *catalog.Catalog, col *catalog.Column) bool {
	if cat != nil {
		return isTimestamp(cat, col)
	}
	typ := strings.ToLower(col.Type)
	return strings.HasPrefix(typ, "timestamp") || typ == "date"
}

// testsIsNull reports whether a predicate has the top-level conjunct
// "col IS NULL".
func testsIsNull(pred catalog.Expr, col string) bool {
	for _, c := range catalog.Conjuncts(pred) {
		if nt, ok := c.(*catalog.NullTest); ok && nt.IsNull && isColumn(nt.Arg, col) {
			return true
		}
	}
	return false
}

// partsIn reports whether every part of a is a part of b.
func partsIn(a, b []catalog.IndexPart) bool {
	for _, p := range a {
		if !nullsafe.PartIn(p, b) {
			return false
		}
	}
	return true
}

// refersTo reports whether the foreign key points at t itself.
func refersTo(fk *catalog.ForeignKey, t *catalog.Table) bool {
	schema, name, ok := strings.Cut(fk.RefTable, ".")
	if !ok {
		schema, name = t.Schema, fk.RefTable
	}
	return name == t.Name && (schema == "" || schema == t.Schema)
}

// twinArm returns the other arm of an exclusive arc the schema does not
// declare: c is a nullable reference of ix, and another unique index of t
// has the same key but for one part d in c's place, a nullable reference
// too (UNIQUE (conversation_id, user_id) beside UNIQUE (conversation_id,
// viewer_id): a participant is a user or a viewer). Rows without c are of
// the other kind, kept unique by that index through d; what escapes both
// is a row with neither, which only a CHECK can rule out. Nil when there
// is no such index, or a CHECK already says so (ArcIntent).
func twinArm(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index, c catalog.IndexPart, claim bool) *catalog.Index {
	if c.Column == "" || !kindOf(cat, t, ix, c, claim).ref || len(nullsafe.ArcIntent(t, c)) > 0 {
		return nil
	}
	for _, v := range t.UniqueIndexes() {
		if v == ix || len(v.Parts) != len(ix.Parts) || nullsafe.HasPart(v, c) ||
			!catalog.Equal(nullsafe.Normalise(v.Predicate), nullsafe.Normalise(ix.Predicate)) {
			continue
		}
		var extra []catalog.IndexPart
		for _, p := range v.Parts {
			if !nullsafe.HasPart(ix, p) {
				extra = append(extra, p)
			}
		}
		if len(extra) != 1 || extra[0].Column == "" {
			continue
		}
		d := extra[0]
		if col := t.Column(d.Column); col == nil || col.IsNotNull() || !kindOf(cat, t, v, d, claim).ref {
			continue
		}
		return v
	}
	return nil
}

// otherArm is the part of twin that stands where c stands in ix.
func otherArm(ix, twin *catalog.Index) catalog.IndexPart {
	for _, p := range twin.Parts {
		if !nullsafe.HasPart(ix, p) {
			return p
		}
	}
	return catalog.IndexPart{}
}
