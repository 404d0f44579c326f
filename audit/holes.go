package audit

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/audit/internal/prose"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/inflect"
)

// hole is what both nullable-key and optional-unique find in one unique
// index: the key parts through which rows escape it.
type hole struct {
	Table *catalog.Table
	Index *catalog.Index
	// cat is the catalog the hole was found in, nil when the caller had
	// none at hand.
	cat *catalog.Catalog
	// Parts are the key parts that may be NULL and that no other index covers.
	Parts []catalog.IndexPart
	// Readings say, for each of Parts in order, what the rows where it is
	// NULL are left with ("Unique when present").
	Readings []reading
	// NotValid names CHECKs that would close the hole but are NOT VALID.
	NotValid []string
	// Optional are the index's other uncovered nullable parts, unique only
	// when present, on a hole narrowed to the parts that keep an identity:
	// a fix must leave rows without them alone.
	Optional []catalog.IndexPart
}

// narrow returns the hole through the parts whose rows keep an identity
// (identity true) or through those that are only unique when present, or
// nil when it has no such part.
func (h *hole) narrow(identity bool) *hole {
	if h == nil {
		return nil
	}
	out := &hole{Table: h.Table, Index: h.Index, cat: h.cat, NotValid: h.NotValid}
	for i, r := range h.Readings {
		if r.optional() != identity {
			out.Parts = append(out.Parts, h.Parts[i])
			out.Readings = append(out.Readings, r)
		} else {
			out.Optional = append(out.Optional, h.Parts[i])
		}
	}
	if len(out.Parts) == 0 {
		return nil
	}
	if !identity {
		out.Optional = nil
	}
	return out
}

// partsOrNil is h's parts, nil for no hole.
func (h *hole) partsOrNil() []catalog.IndexPart {
	if h == nil {
		return nil
	}
	return h.Parts
}

// checkedIndexes yields the unique indexes the hole rules look at: not a
// primary key (its columns are NOT NULL), not NULLS NOT DISTINCT, and not a
// partition's copy of a parent index (the parent reports).
func checkedIndexes(cat *catalog.Catalog, fn func(*catalog.Table, *catalog.Index)) {
	for _, t := range cat.Tables() {
		for _, ix := range t.UniqueIndexes() {
			if ix.Primary || ix.NullsNotDistinct || ix.ParentIndex != "" || len(ix.Parts) == 0 {
				continue
			}
			fn(t, ix)
		}
	}
}

// findHoleIn returns the uncovered nullable key parts of ix, each with its
// reading, or nil. A part whose NULL rows keep an identity is covered when
// other indexes stop their duplicates; rows where an optional part is NULL
// as well have nothing left to identify them and need no cover. cat may be
// nil: then the table alone is read (Pass.tableHoleOf). Rules reach it
// through the Pass, which computes it once per Run.
func findHoleIn(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index) *hole {
	h := &hole{Table: t, Index: ix, cat: cat}
	var nullable []catalog.IndexPart
	var notValid [][]string
	for _, p := range ix.Parts {
		proof := nullsafe.NullSafe(t, ix, p, nil)
		if !proof.Safe {
			nullable = append(nullable, p)
			notValid = append(notValid, proof.NotValid)
		}
	}
	readings := readParts(cat, t, ix, nullable)
	claim := claimTable(t)
	for i, c := range nullable {
		readings[i] = withoutCoveredIdentities(cat, t, ix, c, readings[i], claim)
	}
	var optional []catalog.IndexPart
	for _, r := range readings {
		if r.optional() {
			optional = append(optional, r.part)
		}
	}
	for i, p := range nullable {
		var deliberate []catalog.IndexPart
		if !readings[i].optional() {
			deliberate = optional
		}
		if nullsafe.CoveredExcept(t, ix, p, deliberate, readings[i].standIns) {
			continue
		}
		h.Parts = append(h.Parts, p)
		h.Readings = append(h.Readings, readings[i])
		h.NotValid = append(h.NotValid, notValid[i]...)
	}
	if len(h.Parts) == 0 {
		return nil
	}
	return h
}

// finding builds the common part of a hole finding: object, columns,
// positions and notes. The caller sets the message and fixes.
func (h *hole) finding(p *Pass) Finding {
	t, ix := h.Table, h.Index
	f := Finding{
		Object: t.Schema + "." + t.Name + "." + ix.Name,
		Pos:    ix.Pos,
	}
	opened := p.openings(h)
	for _, part := range h.Parts {
		f.Columns = append(f.Columns, prose.Part(part))
		if part.Column == "" {
			continue
		}
		// A column that lost NOT NULL before the index was created did not
		// open the hole, but the reader still wants to see where.
		if col := t.Column(part.Column); col != nil && !col.NullableSince.IsZero() && !openedAt(opened, col.NullableSince) {
			f.Related = append(f.Related, Related{Pos: col.NullableSince, Message: part.Column + " lost NOT NULL here"})
		}
	}
	placeAtOpening(&f, ix, opened)
	for _, name := range h.NotValid {
		f.Notes = append(f.Notes, "CHECK "+name+" would rule out NULL but was added NOT VALID and never validated, "+
			"so existing rows were never checked; VALIDATE CONSTRAINT "+name+" proves it")
	}
	f.Notes = append(f.Notes, unmodelledNotes(p.unmodelled(), t)...)
	return f
}

// unmodelledNotes says when replay skipped a statement (a DO block, a
// function running DDL) that mentions the table: the catalog may be wrong.
func unmodelledNotes(unmodelled []catalog.Change, t *catalog.Table) []string {
	var out []string
	for _, ch := range unmodelled {
		if !changeMentions(ch, t) {
			continue
		}
		where := ch.Pos.String()
		if where == "" {
			where = ch.File
		}
		out = append(out, "replay could not follow the statement at "+where+" that mentions "+t.Name+
			" (a DO block or function body); what it changes is not checked")
	}
	return out
}

// changeMentions reports whether a change names t: by its Table (and
// Schema, when replay could tell), or by the table's name as a word of the
// statement excerpt.
func changeMentions(ch catalog.Change, t *catalog.Table) bool {
	if ch.Table != "" {
		return ch.Table == t.Name && (ch.Schema == "" || ch.Schema == t.Schema)
	}
	word := regexp.MustCompile(`(?i)(^|[^a-z0-9_])` + regexp.QuoteMeta(t.Name) + `($|[^a-z0-9_])`)
	return word.MatchString(ch.Object)
}

// notValidWords is the message's own admission that a NOT VALID CHECK was
// seen and proves nothing.
func notValidWords(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return " (CHECK " + prose.List(names, "and") + " is NOT VALID, so it proves nothing for existing rows)"
}

// absentWords is "no c" for a column and "a NULL expr" for an expression.
func absentWords(p catalog.IndexPart) string {
	if p.Column != "" {
		return "no " + p.Column
	}
	return "a NULL " + prose.Part(p)
}

// indexHeader is "events.index_name (a, b, c)", the index as people know it.
func indexHeader(t *catalog.Table, ix *catalog.Index) string {
	return t.DisplayName() + "." + catalog.QuoteIdent(ix.Name) + " (" + strings.Join(ix.PartNames(), ", ") + ")"
}

var plainWord = regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)

// rowNoun is the plural noun for the table's rows: its own name when that
// reads as a word ("events"), "rows" otherwise.
func rowNoun(t *catalog.Table) string {
	if plainWord.MatchString(t.Name) {
		return t.Name
	}
	return "rows"
}

// holeMessage says what escapes the index, in the table's own words.
func holeMessage(h *hole) string {
	t, ix := h.Table, h.Index
	var nullable, same, absent []string
	for _, p := range h.Parts {
		nullable = append(nullable, prose.Part(p))
		absent = append(absent, absentWords(p))
	}
	same = append(same, h.forFixes().StandInColumns()...)
	for _, p := range ix.Parts {
		if len(h.Parts) == 1 && nullsafe.SamePart(p, h.Parts[0]) {
			continue
		}
		if len(h.Parts) > 1 && nullsafe.PartIn(p, h.Parts) {
			continue
		}
		same = append(same, prose.Part(p))
	}
	var b strings.Builder
	b.WriteString(indexHeader(t, ix))
	b.WriteString(": ")
	b.WriteString(prose.List(nullable, "and"))
	b.WriteString(" may be NULL, so ")
	if ix.Predicate != nil {
		b.WriteString("among rows where " + ix.Predicate.String() + ", ")
	}
	b.WriteString("two " + rowNoun(t) + " with ")
	if len(same) > 0 {
		b.WriteString("the same " + prose.List(same, "and") + " and ")
	}
	b.WriteString(absent[0])
	if len(absent) > 1 {
		b.WriteString(" (or " + strings.Join(absent[1:], ", or ") + ")")
	}
	b.WriteString(" are both accepted")
	b.WriteString(notValidWords(h.NotValid))
	b.WriteString(evidenceWords(h))
	return b.String()
}

// evidenceWords say what the hole rests on (docs/rules.md, "Say what the
// evidence is"). A soft-delete marker is NULL on every live row, so the
// index compares no two live rows; whether live rows may share a key is
// the reader's to say. A reference the application may always fill makes
// a hole only a written NULL reaches: the gate then rests on the
// application, and the message gives the declaration and the query that
// shows whether it holds.
func evidenceWords(h *hole) string {
	var markers, refs []string
	var b strings.Builder
	for _, r := range h.Readings {
		switch {
		case r.twin != nil:
			d := prose.Part(otherArm(h.Index, r.twin))
			fmt.Fprintf(&b, "; rows without %s are the other kind, with a %s, which %s keeps unique, but nothing declares "+
				"that one of %s and %s is set: a row with neither escapes both indexes", prose.Part(r.part), d,
				catalog.QuoteIdent(r.twin.Name), prose.Part(r.part), d)
		case r.what.kind == kindSoftDelete:
			markers = append(markers, prose.Part(r.part))
		case r.what.ref && !r.what.claimed && r.what.kind != kindActor && r.part.Column != "":
			refs = append(refs, r.part.Column)
		}
	}
	if len(markers) > 0 {
		m := prose.List(markers, "and")
		inPredicate := true
		for _, r := range h.Readings {
			if r.what.kind == kindSoftDelete && !testsIsNull(h.Index.Predicate, r.part.Column) {
				inPredicate = false
			}
		}
		if inPredicate {
			b.WriteString("; " + m + " is NULL in every row the index covers (its WHERE keeps only live rows), so it enforces nothing")
		} else {
			b.WriteString("; " + m + " is NULL on every live row, so among live rows the index enforces nothing")
		}
		b.WriteString(" (if live rows may share a key by design, as versions of one resource do, say so with an ignore directive)")
	}
	if len(refs) > 0 {
		var nulls []string
		for _, c := range refs {
			nulls = append(nulls, catalog.QuoteIdent(c)+" IS NULL")
		}
		it := "it"
		if len(refs) > 1 {
			it = "them"
		}
		fmt.Fprintf(&b, "; if every %s has %s, declare %s NOT NULL: SELECT count(*) FROM %s WHERE %s must be 0",
			rowSingular(h.Table), prose.List(withArticles(refs), "and"), it, h.Table.DisplayName(), strings.Join(nulls, " OR "))
	}
	return b.String()
}

// withArticles puts "a" or "an" before each column name.
func withArticles(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		article := "a"
		if strings.ContainsRune("aeioAEIO", rune(c[0])) { // "a user_id", "an order_id"
			article = "an"
		}
		out[i] = article + " " + c
	}
	return out
}

// rowSingular is one of the table's rows: the singular of its name when
// that reads as a word ("membership"), "row" otherwise.
func rowSingular(t *catalog.Table) string {
	if plainWord.MatchString(t.Name) {
		return inflect.Singular(t.Name)
	}
	return "row"
}

// holeSeverity is nullable-key's severity (docs/rules.md): error in a claim or
// dedupe table, or when a key part that is never NULL is a request, event
// or transaction id; warning otherwise. The nullable part's own name never
// makes it an error: "idempotency_key may be NULL" argues for intent.
func holeSeverity(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index) Severity {
	if claimTable(t) || requestKeyed(cat, t, ix) {
		return Error
	}
	return Warning
}
