package audit

import (
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// This file is the "Unique when present" reasoning of RULES.md: for each
// nullable key part c of a unique index, what the other key parts leave
// the rows where c is NULL. When they only scope such a row (a parent, a
// tenant, a discriminator), the index reads "c is unique within its scope
// when present": optional-unique. When one of them still identifies the
// row (an address, a transaction id, a name), two such rows are duplicates
// and the index has a hole: nullable-key.

// role is what a key part does for the rows of its index.
type role int

const (
	// roleIdentity identifies the row: an address, a transaction id, a
	// name, a number, a date. The default when nothing says otherwise.
	roleIdentity role = iota
	// roleScope places the row under a parent or tenant.
	roleScope
	// roleDiscriminator sorts rows into a few kinds.
	roleDiscriminator
)

// partRole is a key part's role and the evidence for it, in words that fit
// "... is <why>" ("a foreign key to accounts", "named like a kind").
type partRole struct {
	role role
	why  string
	// claimed is set for a reference that identifies only because the
	// table is a claim or dedupe table.
	claimed bool
}

// reading is what the rows where one nullable key part is NULL are left
// with.
type reading struct {
	part catalog.IndexPart
	// identity is the other key part that still identifies such a row, with
	// why; nil when the other parts only scope it.
	identity *catalog.IndexPart
	why      string
	claimed  bool
	// arc names the columns a CHECK makes non-NULL when the part is NULL:
	// such a row is of another kind, identified by them.
	arc []string
}

func (r reading) optional() bool { return r.identity == nil && len(r.arc) == 0 }

// readPart judges one nullable key part c of ix.
func readPart(cat *catalog.Catalog, t *catalog.Table, ix *catalog.Index, c catalog.IndexPart, claim bool) reading {
	r := reading{part: c}
	if len(ix.Parts) < 2 {
		return r // a single part has nothing beside it: unique when present
	}
	if r.arc = arcIntent(t, c); len(r.arc) > 0 {
		return r
	}
	// The part named in the note is the plainest identity: an address
	// rather than a foreign key that identifies only in a claim table.
	for _, p := range ix.Parts {
		if samePart(p, c) {
			continue
		}
		pr := roleOf(cat, t, p, claim)
		if pr.role != roleIdentity {
			continue
		}
		if r.identity == nil || (r.claimed && !pr.claimed) {
			p := p
			r.identity, r.why, r.claimed = &p, pr.why, pr.claimed
		}
	}
	return r
}

// roleOf judges a key part: structure first (a foreign key, the column's
// type, a CHECK listing its values), then its name. In a claim or dedupe
// table a reference to another row is the claimed target, so identity.
func roleOf(cat *catalog.Catalog, t *catalog.Table, p catalog.IndexPart, claim bool) partRole {
	col := p.Column
	if col == "" {
		cols := p.Columns()
		if len(cols) == 0 {
			return partRole{role: roleScope, why: "a constant"}
		}
		if len(cols) > 1 {
			return partRole{role: roleIdentity, why: "an expression over several columns"}
		}
		col = cols[0]
	}
	words := nameWords(col)
	reference := len(words) > 1 && slices.Contains(referenceSuffixes, words[len(words)-1]) && !anyWord(words, identityIDWords)
	if fk := t.ForeignKeyOn(col); fk != nil {
		if claim {
			return partRole{role: roleIdentity, why: "the claimed target in a claim table (" + refWords(fk) + ")", claimed: true}
		}
		return partRole{role: roleScope, why: refWords(fk)}
	}
	if c := t.Column(col); c != nil {
		switch {
		case c.Enum:
			return partRole{role: roleDiscriminator, why: "an enum"}
		case booleanColumn(cat, c):
			return partRole{role: roleDiscriminator, why: "a boolean"}
		case listedValues(t, col):
			return partRole{role: roleDiscriminator, why: "limited by a CHECK to a few values"}
		}
	}
	switch {
	case reference && claim:
		return partRole{role: roleIdentity, why: "the claimed target in a claim table (named like a reference)", claimed: true}
	case reference:
		return partRole{role: roleScope, why: "named like a reference to a parent row"}
	case discriminatorName(words):
		return partRole{role: roleDiscriminator, why: "named like a kind"}
	case len(words) > 0 && slices.Contains(scopeWords, words[len(words)-1]):
		if claim {
			return partRole{role: roleIdentity, why: "the claimed target in a claim table (named like a parent or tenant)", claimed: true}
		}
		return partRole{role: roleScope, why: "named like a parent or tenant"}
	}
	return partRole{role: roleIdentity, why: "an identity value"}
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
	return len(words) > 1 && slices.Contains(taskWords, words[0]) && slices.Contains(taskNameEnds, last)
}

// booleanColumn reports whether the column is boolean: through a domain
// too when the catalog is at hand (findHole's callers outside these rules
// pass none).
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

// arcIntent lists the columns a CHECK of t (validated or not: it states
// the design either way) forces non-NULL whenever c is NULL.
func arcIntent(t *catalog.Table, c catalog.IndexPart) []string {
	var out []string
	for _, col := range t.Columns {
		if len(arcChecksFor(t, c, col)) > 0 {
			out = append(out, col.Name)
		}
	}
	return out
}

// arcChecks are the CHECKs of t that make another nullable column non-NULL
// whenever c is NULL.
func arcChecks(t *catalog.Table, c catalog.IndexPart) []*catalog.Check {
	var out []*catalog.Check
	for _, col := range t.Columns {
		for _, ck := range arcChecksFor(t, c, col) {
			if !containsCheck(out, ck) {
				out = append(out, ck)
			}
		}
	}
	return out
}

func arcChecksFor(t *catalog.Table, c catalog.IndexPart, col *catalog.Column) []*catalog.Check {
	if samePart(c, catalog.IndexPart{Column: col.Name}) || col.IsNotNull() {
		return nil
	}
	assume := env{partExpr(c).String(): isNull}
	target := &catalog.ColumnRef{Name: col.Name}
	var out []*catalog.Check
	for _, ck := range t.Checks {
		if checkForces(ck.Expr, target, assume) {
			out = append(out, ck)
		}
	}
	return out
}

func containsCheck(list []*catalog.Check, ck *catalog.Check) bool {
	for _, x := range list {
		if x == ck {
			return true
		}
	}
	return false
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
		if containsAny(chosenWords(t, ix), claimWords) {
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
	if len(ix.Name) >= maxIdent {
		for _, n := range names[1:] {
			for k := len(n) - 1; k >= 3; k-- {
				if strings.HasSuffix(name, n[:k]) {
					name = strings.TrimSuffix(name, n[:k])
					break
				}
			}
		}
	}
	return name
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
		if !NullSafe(t, ix, p, nil).Safe {
			continue
		}
		if roleOf(cat, t, p, claim).role != roleIdentity {
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
		wordList{"a parent or tenant, scope (the last word)", scopeWords},
		wordList{"a reference to a parent row, scope (the last word)", referenceSuffixes},
		wordList{"an identity although it ends in id: a value from outside, or the row's own number (a word)",
			identityIDWords},
		wordList{"nullable-key is an error when a key part that is never NULL has a word", requestIDWords},
		wordList{"an optional idempotency key, for which the finding gives the fallback-key design (contains)",
			idempotencyKeyWords},
	)
}
