package audit

import (
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/catalog"
)

// This file is the "Unique when present" reasoning of docs/rules.md: for each
// nullable key part c of a unique index, what the other key parts leave
// the rows where c is NULL. When they only scope such a row (a parent, a
// tenant, a discriminator), the index reads "c is unique within its scope
// when present": optional-unique. When one of them still identifies the
// row (an address, a transaction id, a name), two such rows are duplicates
// and the index has a hole: nullable-key.

// reading is what the rows where one nullable key part is NULL are left
// with, and what the part is.
type reading struct {
	part catalog.IndexPart
	// what is what the part itself is (part_kinds.go).
	what part
	// hole is set when rows with the part NULL can be duplicates: the part
	// is never the row's own optional value and something is left beside
	// it, or another attribute, an identity, is left beside it.
	hole bool
	// identity is the other key part that still identifies such a row,
	// with why; nil when the part is a hole by what it is, or when the
	// other parts only scope it.
	identity *catalog.IndexPart
	why      string
	// arc names the columns a CHECK makes non-NULL when the part is NULL:
	// such a row is of another kind, identified by them.
	arc []string
	// standIns are columns outside the key that still scope the rows where
	// the part is NULL (the parent of the row it references): a fix must
	// keep those rows apart by them.
	standIns []string
	// twin is the unique index of an exclusive arc nothing declares: rows
	// without the part are the other kind, kept unique there, and only a
	// row with neither arm escapes (twinArm).
	twin *catalog.Index
}

func (r reading) optional() bool { return !r.hole && len(r.arc) == 0 }

// readPart judges one nullable key part c of ix: what c is, and what the
// other key parts leave the rows where it is NULL (docs/rules.md, "Unique
// when present"). An index of one key part is unique when present. A
// reference, a scope, an actor or a soft-delete marker is never the row's
// own optional value, so with anything beside it the index has a hole: in
// a link row the other end is left, in an owner key the owner's type. The
// row's own attribute (a name, a code, a number, an id of its own) is
// unique when present when the other parts only scope it, and a hole when
// another attribute is left beside it (a name beside an email), the other
// bound of its own period aside.
//
// The parts in without are left out of what the rows keep: the rows that
// escape through c all have them NULL too (withoutCoveredIdentities).
func readPart(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index, c catalog.IndexPart, claim bool, without ...catalog.IndexPart) reading {
	r := reading{part: c, what: kindOf(cat, t, ix, c, claim)}
	if len(ix.Parts) < 2 {
		return r // a single part has nothing beside it: unique when present
	}
	if r.what.ref && !r.what.claimed && optionalLink(t, ix, c) {
		r.what.kind = kindAttribute
		r.what.why += ", a link the row outlives (ON DELETE SET NULL) beside the owners it is deleted with (ON DELETE CASCADE)"
	}
	if r.arc = nullsafe.ArcIntent(t, c); len(r.arc) > 0 {
		return r
	}
	bound := rangePair(t, ix, c)
	var nullableIdentity *catalog.IndexPart
	nullableWhy := ""
	for _, p := range ix.Parts {
		if nullsafe.SamePart(p, c) || (bound != nil && nullsafe.SamePart(p, *bound)) || nullsafe.PartIn(p, without) {
			continue
		}
		pr := kindOf(cat, t, ix, p, claim)
		if pr.scopeOnly() {
			continue
		}
		p := p
		if !nullsafe.NullSafe(t, ix, p, nil).Safe {
			if nullableIdentity == nil {
				nullableIdentity, nullableWhy = &p, pr.why
			}
			continue
		}
		if r.identity == nil || (kindOf(cat, t, ix, *r.identity, claim).claimed && !pr.claimed) {
			r.identity, r.why = &p, pr.why
		}
	}
	if r.identity == nil && nullableIdentity != nil {
		r.identity, r.why = nullableIdentity, nullableWhy
	}
	r.hole = r.identity != nil || r.what.neverOwn()
	if r.hole && r.what.ref {
		r.twin = twinArm(cat, t, ix, c, claim)
		if r.twin == nil {
			r.standIns = scopeStandIns(cat, t, ix, c)
		}
	}
	return r
}

// withoutCoveredIdentities re-reads the nullable part c when the identity
// its NULL rows keep is itself a nullable part d, and other indexes stop
// every duplicate among the rows where c is NULL and d is not (the split of
// an index with two nullable parts): what still escapes through c has d
// NULL as well, so it is read without d. walkins (venue_id, slot_id,
// guest_id) split by (venue_id, guest_id) WHERE slot_id IS NULL and
// (venue_id, slot_id) WHERE guest_id IS NULL lets through only rows with
// neither, which keep nothing but their venue: unique when present, not an
// identity left beside a NULL.
func withoutCoveredIdentities(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index, c catalog.IndexPart, r reading, claim bool) reading {
	var without []catalog.IndexPart
	for r.identity != nil && len(without) < len(ix.Parts) {
		d := *r.identity
		if nullsafe.NullSafe(t, ix, d, nil).Safe {
			return r
		}
		excused := append(append([]catalog.IndexPart(nil), without...), d)
		if !nullsafe.CoveredExcept(t, ix, c, excused, r.standIns) {
			return r
		}
		without = excused
		r = readPart(cat, t, ix, c, claim, without...)
	}
	return r
}

// scopeStandIns are the columns of t outside ix's key that scope the rows
// where c is NULL: c references a row of R, R belongs to P (a NOT NULL
// foreign key), and t references P itself with a NOT NULL column named
// after P that is no key part. The index names c but not P, so two rows without c are
// duplicates only within one P: NULLS NOT DISTINCT, or a split over the
// other key parts alone, would join rows of different Ps (an error state
// for every environment of a project, beside the same state of another
// project). A P that a key part already implies is left out, and so is one
// that another stand-in's table belongs to.
func scopeStandIns(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index, c catalog.IndexPart) []string {
	if cat == nil || c.Column == "" {
		return nil
	}
	fk := t.ForeignKeyOn(c.Column)
	ref := referenced(cat, fk)
	if fk == nil || len(fk.Columns) != 1 || ref == nil || ref == t {
		return nil
	}
	implied := map[*catalog.Table]bool{}
	for _, p := range ix.Parts {
		if nullsafe.SamePart(p, c) || p.Column == "" {
			continue
		}
		if pfk := t.ForeignKeyOn(p.Column); pfk != nil {
			if x := referenced(cat, pfk); x != nil {
				implied[x] = true
				for _, up := range parents(cat, x) {
					implied[up] = true
				}
			}
		}
	}
	type standIn struct {
		column string
		table  *catalog.Table
	}
	var found []standIn
	for _, parent := range parents(cat, ref) {
		if implied[parent] || parent == t {
			continue
		}
		for _, q := range t.ForeignKeys {
			if len(q.Columns) != 1 {
				continue
			}
			col := t.Column(q.Columns[0])
			if col == nil || !col.IsNotNull() || nullsafe.PartIn(catalog.IndexPart{Column: col.Name}, ix.Parts) ||
				!namesTable(col.Name, parent) {
				continue
			}
			if referenced(cat, q) == parent {
				found = append(found, standIn{col.Name, parent})
				break
			}
		}
	}
	var out []string
	for _, s := range found {
		redundant := false
		for _, o := range found {
			if o.table != s.table && slices.Contains(parents(cat, o.table), s.table) {
				redundant = true
			}
		}
		if !redundant {
			out = append(out, s.column)
		}
	}
	return out
}

// namesTable reports whether a reference column is named after the table
// it points at (project_id, projectId for Project): the row's own parent,
// not a record of who did something (created_by_id).
func namesTable(column string, t *catalog.Table) bool {
	words := nameWords(column)
	if len(words) < 2 || !slices.Contains(referenceSuffixes, words[len(words)-1]) {
		return false
	}
	return slices.Contains(tableNameForms(words[:len(words)-1]), squash(t.Name))
}

// referenced is the table a foreign key points at, or nil.
func referenced(cat *catalog.Catalog, fk *catalog.ForeignKey) *catalog.Table {
	if fk == nil {
		return nil
	}
	schema, name, ok := strings.Cut(fk.RefTable, ".")
	if !ok {
		schema, name = "", fk.RefTable
	}
	return cat.ResolveTable(schema, name)
}

// parents are the tables t belongs to: those a single-column NOT NULL
// foreign key of t points at, t itself left out.
func parents(cat *catalog.Catalog, t *catalog.Table) []*catalog.Table {
	var out []*catalog.Table
	for _, fk := range t.ForeignKeys {
		if len(fk.Columns) != 1 {
			continue
		}
		col := t.Column(fk.Columns[0])
		if col == nil || !col.IsNotNull() {
			continue
		}
		if p := referenced(cat, fk); p != nil && p != t && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func refWords(fk *catalog.ForeignKey) string {
	ref := fk.RefTable
	if i := strings.IndexByte(ref, '.'); i >= 0 && ref[:i] == "public" {
		ref = ref[i+1:]
	}
	if ref == "" {
		return "a foreign key"
	}
	return "a foreign key to " + ref
}

func discriminatorName(words []string) bool {
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if slices.Contains(discriminatorWords, last) {
		return true
	}
	if len(words) < 2 {
		return false
	}
	return (slices.Contains(taskWords, words[0]) && slices.Contains(taskNameEnds, last)) ||
		(slices.Contains(scheduleWords, words[0]) && slices.Contains(scheduleNameEnds, last))
}

// booleanColumn reports whether the column is boolean: through a domain
// too when the catalog is at hand (Pass.tableHoleOf reads a hole without
// it).
func booleanColumn(cat *catalog.Catalog, c *catalog.Column) bool {
	if cat != nil {
		return isBoolean(cat, c)
	}
	return c.Type == "boolean" || c.Type == "bool"
}

// listedValues reports whether a CHECK of t limits col to listed values
// (col IN (...), col = ANY (ARRAY[...]), col = 'a' OR col = 'b'). A NOT
// VALID one counts too: it states what the column is for.
func listedValues(t *catalog.Table, col string) bool {
	for _, ck := range t.Checks {
		for _, conj := range catalog.Conjuncts(ck.Expr) {
			if listsValues(conj, col) {
				return true
			}
		}
	}
	return false
}

func listsValues(e catalog.Expr, col string) bool {
	switch x := e.(type) {
	case *catalog.Compare:
		return (x.Op == "IN" || x.Op == "= ANY") && isColumn(x.Left, col)
	case *catalog.Or:
		for _, a := range x.Args {
			cmp, ok := a.(*catalog.Compare)
			if !ok || cmp.Op != "=" || !isColumn(cmp.Left, col) {
				if !listsValues(a, col) {
					return false
				}
			}
		}
		return len(x.Args) > 0
	}
	return false
}

// isColumn reports whether e is col, perhaps behind casts.
func isColumn(e catalog.Expr, col string) bool {
	for {
		switch x := e.(type) {
		case *catalog.ColumnRef:
			return x.Name == col
		case *catalog.Func:
			if !x.Cast || len(x.Args) != 1 {
				return false
			}
			e = x.Args[0]
		default:
			return false
		}
	}
}

// claimTable reports whether t is a claim or dedupe table: its name says
// so, or the name a person gave one of its unique indexes does. The words a
// generated index name takes from its table and key columns do not count:
// Prisma's TaskRun_runtimeEnvironmentId_taskIdentifier_idempotencyKey_key
// says nothing about the table.
func claimTable(t *catalog.Table) bool {
	if containsAny(t.Name, claimWords) {
		return true
	}
	for _, ix := range t.UniqueIndexes() {
		// Every word chosenWords keeps is a piece of the index name, and no
		// claim word spans two, so a name without one needs no look.
		if containsAny(ix.Name, claimWords) && containsAny(chosenWords(t, ix), claimWords) {
			return true
		}
	}
	return false
}

// chosenWords is what is left of an index name once the table's name and
// the names of its key columns are taken out: the words a person chose.
// A name cut at 63 bytes also loses the start of a column name at its end.
func chosenWords(t *catalog.Table, ix *catalog.Index) string {
	name := strings.ToLower(ix.Name)
	names := []string{strings.ToLower(t.Name)}
	for _, p := range ix.Parts {
		for _, c := range p.Columns() {
			names = append(names, strings.ToLower(c))
		}
	}
	for _, c := range ix.Include {
		names = append(names, strings.ToLower(c))
	}
	for _, n := range names {
		name = strings.ReplaceAll(name, n, " ")
	}
	if len(ix.Name) >= catalog.MaxIdentLen {
		for _, n := range names[1:] {
			for k := len(n) - 1; k >= 3; k-- {
				if strings.HasSuffix(name, n[:k]) {
					name = strings.TrimSuffix(name, n[:k])
					break
				}
			}
		}
	}
	// A name made to fit 63 bytes (ours, by the fix namer, or a person's)
	// may cut a column name in the middle of it too:
	// ..._idempotencyKey_key becomes ..._idempote_projectId_null.
	var kept []string
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == ' ' }) {
		cut := false
		for _, n := range names[1:] {
			if len(w) >= 3 && len(w) < len(n) && strings.HasPrefix(n, w) {
				cut = true
			}
		}
		if !cut {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// readParts judges each nullable part of ix.
func readParts(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index, parts []catalog.IndexPart) []reading {
	claim := claimTable(t)
	out := make([]reading, len(parts))
	for i, p := range parts {
		out[i] = readPart(cat, t, ix, p, claim)
	}
	return out
}

// requestKeyed reports whether a key part of ix that is never NULL is an
// identity named like a request, event or transaction id: the index
// deduplicates requests, and a hole in it is a duplicate effect.
func requestKeyed(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index) bool {
	claim := claimTable(t)
	for _, p := range ix.Parts {
		if !nullsafe.NullSafe(t, ix, p, nil).Safe {
			continue
		}
		if pr := kindOf(cat, t, ix, p, claim); pr.scopeOnly() || pr.kind == kindSoftDelete {
			continue
		}
		for _, c := range p.Columns() {
			if anyWord(nameWords(c), requestIDWords) {
				return true
			}
		}
	}
	return false
}

// anyWord reports whether one of words is in list.
func anyWord(words, list []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(list, w) })
}

// containsAny reports whether s, lower-cased, contains any of the fragments.
func containsAny(s string, fragments []string) bool {
	s = strings.ToLower(s)
	for _, f := range fragments {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// uniqueWhenPresentWords is the part of optional-unique's doc that shows the
// name lists.
func uniqueWhenPresentWords() string {
	return wordListDoc(
		wordList{"a claim or dedupe table (the table's name, or an index name a person chose, contains)", claimWords},
		wordList{"a discriminator (the column's last word)", discriminatorWords},
		wordList{"a task name, a discriminator (the first word; the last is one of " +
			strings.Join(taskNameEnds, ", ") + ")", taskWords},
		wordList{"a schedule's name, a discriminator (the first word; the last is one of " +
			strings.Join(scheduleNameEnds, ", ") + ")", scheduleWords},
		wordList{"a parent or tenant, scope (the last word, or the word before an id suffix)", scopeWords},
		wordList{"an actor, credited with the row (the last word before an id suffix; or a last word by: created_by)",
			actorWords},
		wordList{"a soft-delete marker when a nullable timestamp or date (the name, in any case)", softDeleteNames},
		wordList{"the two bounds of one period (the one word two names differ in)", boundWords()},
		wordList{"a reference to another row when the stem before it names a table through the inflector (the last word)",
			referenceSuffixes},
		wordList{"nullable-key is an error when a key part that is never NULL has a word", requestIDWords},
		wordList{"an optional idempotency key, for which the finding gives the fallback-key design (contains)",
			idempotencyKeyWords},
	)
}

// optionalLink reports whether the schema declares the reference c the
// row's own optional link: its foreign key sets it NULL when the row it
// points at goes (ON DELETE SET NULL), so the row is meant to live on
// without it, and every other key part is a NOT NULL reference the row is
// deleted with (ON DELETE CASCADE), its owners. An account of an auth
// method linked to a user once there is one: UNIQUE (auth_method_id,
// user_id) keeps one account per user and method, and unlinked accounts
// are many by design.
func optionalLink(t *catalog.Table, ix *catalog.Index, c catalog.IndexPart) bool {
	fk := t.ForeignKeyOn(c.Column)
	if c.Column == "" || fk == nil || fk.OnDelete != "n" {
		return false
	}
	for _, p := range ix.Parts {
		if nullsafe.SamePart(p, c) {
			continue
		}
		col := t.Column(p.Column)
		owner := t.ForeignKeyOn(p.Column)
		if p.Column == "" || col == nil || !col.IsNotNull() || owner == nil || owner.OnDelete != "c" {
			return false
		}
	}
	return true
}

// rangePair returns the other bound of a period when c is one bound of it
// (charges_from_datetime and charges_to_datetime, start_date and end_date):
// both key parts of ix of the same type, both may be NULL, and their names
// differ only in the rangeBoundWords pair. nil otherwise.
func rangePair(t *catalog.Table, ix *catalog.Index, c catalog.IndexPart) *catalog.IndexPart {
	col := t.Column(c.Column)
	if c.Column == "" || col == nil || nullsafe.NullSafe(t, ix, c, nil).Safe {
		return nil
	}
	words := nameWords(c.Column)
	for _, p := range ix.Parts {
		other := t.Column(p.Column)
		if p.Column == "" || other == nil || nullsafe.SamePart(p, c) || other.Type != col.Type ||
			nullsafe.NullSafe(t, ix, p, nil).Safe || !boundPair(words, nameWords(p.Column)) {
			continue
		}
		p := p
		return &p
	}
	return nil
}

// boundPair reports whether two names differ in exactly one word, and that
// word is a rangeBoundWords pair (from and to).
func boundPair(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	diff := -1
	for i := range a {
		if a[i] != b[i] {
			if diff >= 0 {
				return false
			}
			diff = i
		}
	}
	if diff < 0 {
		return false
	}
	for _, pair := range rangeBoundWords {
		if (a[diff] == pair[0] && b[diff] == pair[1]) || (a[diff] == pair[1] && b[diff] == pair[0]) {
			return true
		}
	}
	return false
}

// boundWords is rangeBoundWords as the doc shows them, "from/to".
func boundWords() []string {
	var out []string
	for _, p := range rangeBoundWords {
		out = append(out, p[0]+"/"+p[1])
	}
	return out
}
