package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/catalog"
)

// defaultPGVersion is used when Options.PGVersion is unset.
const defaultPGVersion = 16

// holeFixes returns the fixes for a hole, most preferable first (RULES.md
// "Fixes"). A real hole is one where NULL is a legitimate value and rows
// without it should still be unique among themselves, so the fixes that keep
// NULL and make it count come first: NULLS NOT DISTINCT on PostgreSQL 15
// and later, then the portable split; NOT NULL, which changes the data
// model, comes last (UseData moves it first on evidence). An index that
// also has parts unique only when present gets no NULLS NOT DISTINCT: it
// would make rows without those parts collide too. A hole on one arm of an
// exclusive arc gets only the index for the other arm: NOT NULL and NULLS
// NOT DISTINCT would both break such a table.
func holeFixes(p *Pass, h *hole) []Fix {
	version := p.Options.PGVersion
	if version == 0 {
		version = defaultPGVersion
	}
	names := newNamer(p, h.Table)
	arc := false
	for _, part := range h.Parts {
		if len(arcIntent(h.Table, part)) > 0 {
			arc = true
		}
	}
	if arc {
		return []Fix{arcFix(h, names)}
	}
	if standIns(h) != nil {
		fixes := []Fix{standInFix(h, names)}
		if allColumns(h.Parts) {
			fixes = append(fixes, notNullFix(h, names))
		}
		return fixes
	}
	var fixes []Fix
	if version >= 15 && len(h.Optional) == 0 {
		fixes = append(fixes, nndFix(h, names))
	}
	fixes = append(fixes, splitFix(h, names))
	if allColumns(h.Parts) && !requiredOpensHole(h) {
		fixes = append(fixes, notNullFix(h, names))
	}
	return fixes
}

// requiredOpensHole reports whether making the hole's parts NOT NULL would
// open another hole: an optional part of the index is unique when present
// only because the identity its rows keep may be NULL, and that identity is
// one of the parts NOT NULL would make required.
func requiredOpensHole(h *hole) bool {
	for _, k := range h.optionalKeys {
		if nullsafe.PartIn(k, h.Parts) {
			return true
		}
	}
	return false
}

func allColumns(parts []catalog.IndexPart) bool {
	for _, p := range parts {
		if p.Column == "" {
			return false
		}
	}
	return true
}

// notNullFix is the lock-friendly NOT NULL sequence: a NOT VALID CHECK takes
// a brief lock, VALIDATE scans without blocking writes, and SET NOT NULL then
// skips its own scan because the validated CHECK already proves it.
func notNullFix(h *hole, names *namer) Fix {
	t := h.Table
	table := t.DisplayName()
	var sql []string
	var cols []string
	for _, p := range h.Parts {
		ck := catalog.QuoteIdent(names.constraint(t.Name+"_"+p.Column, "not_null_tmp"))
		col := catalog.QuoteIdent(p.Column)
		cols = append(cols, col+" IS NULL")
		sql = append(sql,
			fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s CHECK (%s IS NOT NULL) NOT VALID;", table, ck, col),
			fmt.Sprintf("ALTER TABLE %s VALIDATE CONSTRAINT %s;", table, ck),
			fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s SET NOT NULL;", table, col),
			fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s;", table, ck))
	}
	return Fix{
		Title: "make " + englishList(partList(h.Parts), "and") + " NOT NULL",
		SQL:   strings.Join(sql, "\n"),
		kind:  fixNotNull,
		Caveat: "Right only when a row without " + englishList(partList(h.Parts), "or") +
			" should not exist: this changes the data model, and breaks the application wherever NULL means " +
			"\"none\". VALIDATE fails while any row holds NULL (the precheck lists them): backfill " +
			"them first, with values that do not collide, and make sure the application always sets the column.",
		Precheck: fmt.Sprintf("SELECT %s FROM %s WHERE %s;", strings.Join(partSQL(h.Index.Parts), ", "), table, strings.Join(cols, " OR ")),
	}
}

// nndFix rebuilds the index NULLS NOT DISTINCT (PostgreSQL 15+) without
// blocking writes; an index backing a UNIQUE constraint is swapped in by one
// ALTER TABLE so the constraint never disappears.
func nndFix(h *hole, names *namer) Fix {
	t, ix := h.Table, h.Index
	newName := names.relation(ix.Name, "nnd")
	create := createIndexSQL(t, newName, ix.Parts, ix.Include, true, catalog.Conjuncts(ix.Predicate))
	var rest []string
	caveat := "NULL then equals NULL: right when NULL means \"no scope\" (at most one such row), wrong when NULL " +
		"means \"not applicable to this row\". " + buildNote(t)
	if ix.Constraint != "" {
		add := fmt.Sprintf("ADD CONSTRAINT %s UNIQUE USING INDEX %s", catalog.QuoteIdent(ix.Constraint), catalog.QuoteIdent(newName))
		if ix.Deferrable {
			add += " DEFERRABLE"
			if ix.InitiallyDeferred {
				add += " INITIALLY DEFERRED"
			}
		}
		rest = append(rest, fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s, %s;", t.DisplayName(), catalog.QuoteIdent(ix.Constraint), add))
		caveat += " The swap fails while a foreign key references the constraint: drop the foreign key first and add it back after."
	} else {
		rest = append(rest,
			fmt.Sprintf("DROP INDEX %s%s;", concurrently(t), qualifiedIndex(t, ix.Name)),
			fmt.Sprintf("ALTER INDEX %s RENAME TO %s;", qualifiedIndex(t, newName), catalog.QuoteIdent(ix.Name)))
	}
	return Fix{
		Title:         "rebuild " + ix.Name + " NULLS NOT DISTINCT (PostgreSQL 15 and later)",
		SQL:           strings.Join(append([]string{create}, rest...), "\n"),
		Caveat:        caveat,
		Precheck:      collisionQuery(h),
		NoTransaction: canBuildConcurrently(t),
	}
}

// splitFix adds, for each combination of NULL key parts, a partial unique
// index over the remaining parts: portable to every version.
func splitFix(h *hole, names *namer) Fix {
	t, ix := h.Table, h.Index
	var sql []string
	for _, nulls := range subsets(h.Parts) {
		var keep []catalog.IndexPart
		for _, p := range ix.Parts {
			if !nullsafe.PartIn(p, nulls) {
				keep = append(keep, p)
			}
		}
		if len(keep) == 0 {
			// Every key part is NULL: at most one such row, which an index
			// over a constant says.
			keep = []catalog.IndexPart{{Expr: &catalog.Const{Value: "true"}}}
		}
		var conj []catalog.Expr
		var label []string
		for _, p := range h.Parts {
			if nullsafe.PartIn(p, nulls) {
				conj = append(conj, nullsafe.IsNullOf(p))
				label = append(label, nameWord(p))
			} else {
				conj = append(conj, &catalog.NullTest{Arg: nullsafe.PartExpr(p)})
			}
		}
		conj = append(conj, presentConjuncts(h.Optional)...)
		conj = append(conj, catalog.Conjuncts(ix.Predicate)...)
		name := names.relation(ix.Name, strings.Join(label, "_")+"_null")
		sql = append(sql, createIndexSQL(t, name, keep, ix.Include, false, conj))
	}
	f := Fix{
		Title:         "add a partial unique index for rows where " + englishList(partList(h.Parts), "or") + " is NULL",
		SQL:           strings.Join(sql, "\n"),
		Caveat:        "Keeps NULL meaning \"absent\" and works on every version. " + buildNote(t),
		Precheck:      collisionQuery(h),
		NoTransaction: canBuildConcurrently(t),
	}
	if len(h.Parts) > 2 {
		f.Caveat += fmt.Sprintf(" With %d nullable key parts the split grows as 2^k (%d indexes here): prefer making columns NOT NULL or NULLS NOT DISTINCT.",
			len(h.Parts), len(sql))
	}
	if len(h.Optional) > 0 {
		opt := englishList(partList(h.Optional), "or")
		f.Caveat += " The split leaves rows without " + opt + " alone, as the index does; NULLS NOT DISTINCT is not " +
			"offered because it would make those rows collide too."
	}
	return f
}

// presentConjuncts are "p IS NOT NULL" for each part.
func presentConjuncts(parts []catalog.IndexPart) []catalog.Expr {
	var out []catalog.Expr
	for _, p := range parts {
		out = append(out, &catalog.NullTest{Arg: nullsafe.PartExpr(p)})
	}
	return out
}

// arcFix adds, for each arm d that a CHECK forces when c is NULL, a unique
// index over the other key parts and d among rows where c is NULL. A CHECK
// still NOT VALID is validated first: until then it proves nothing, and
// the new index would not cover the hole.
func arcFix(h *hole, names *namer) Fix {
	t := h.Table
	var validate []string
	for _, c := range h.Parts {
		for _, ck := range arcChecks(t, c) {
			if !ck.Validated && !slices.Contains(validate, ck.Name) {
				validate = append(validate, ck.Name)
			}
		}
	}
	var sql []string
	for _, name := range validate {
		sql = append(sql, fmt.Sprintf("ALTER TABLE %s VALIDATE CONSTRAINT %s;", t.DisplayName(), catalog.QuoteIdent(name)))
	}
	f := nullRowsFix(h, names, sql, func(i int) []string { return arcIntent(t, h.Parts[i]) })
	f.Title = "add the unique index for the other arm of the exclusive arc"
	caveat := "A CHECK makes these rows the other kind, so NULL here means \"not applicable\": NOT NULL or NULLS NOT " +
		"DISTINCT would break the table. "
	if len(validate) > 0 {
		caveat += "VALIDATE fails while a row breaks the CHECK; it scans the table without blocking writes. "
	}
	f.Caveat = caveat + buildNote(t)
	return f
}

// standInFix adds, for rows where a part is NULL, a unique index over the
// other key parts and the columns that still scope those rows (the parent
// of what the part references): NULLS NOT DISTINCT, or the split over the
// key alone, would join rows of different parents.
func standInFix(h *hole, names *namer) Fix {
	f := nullRowsFix(h, names, nil, func(i int) []string { return h.Readings[i].standIns })
	all := standIns(h)
	f.Title = "add a unique index for rows where " + englishList(partList(h.Parts), "or") + " is NULL, per " +
		englishList(all, "and")
	f.Caveat = "Rows without " + englishList(partList(h.Parts), "or") + " still belong to a " + englishList(all, "and") +
		", which the key does not name: NULLS NOT DISTINCT, or a split over the key alone, would make rows of " +
		"different " + englishList(all, "and") + " collide. " + buildNote(h.Table)
	return f
}

// standIns are the columns, over every part of the hole, that scope its
// NULL rows from outside the key; nil when there are none.
func standIns(h *hole) []string {
	var out []string
	for _, r := range h.Readings {
		for _, c := range r.standIns {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// nullRowsFix builds, after the statements in first, for each part c of the
// hole a unique index among rows where c is NULL: over the other key parts
// and each column of others(i) in turn, or over the other key parts alone
// when others names none.
func nullRowsFix(h *hole, names *namer, first []string, others func(i int) []string) Fix {
	t, ix := h.Table, h.Index
	sql := append([]string(nil), first...)
	var prechecks []string
	for i, c := range h.Parts {
		var keep []catalog.IndexPart
		for _, p := range ix.Parts {
			if !nullsafe.SamePart(p, c) {
				keep = append(keep, p)
			}
		}
		pred := append([]catalog.Expr{nullsafe.IsNullOf(c)}, catalog.Conjuncts(ix.Predicate)...)
		partners := others(i)
		if len(partners) == 0 {
			name := names.relation(ix.Name, nameWord(c)+"_null")
			sql = append(sql, createIndexSQL(t, name, keep, ix.Include, false, pred))
			prechecks = append(prechecks, groupQuery(t, partSQL(keep), pred))
			continue
		}
		for _, d := range partners {
			parts := append(append([]catalog.IndexPart(nil), keep...), catalog.IndexPart{Column: d})
			name := names.relation(t.Name+"_"+joinWords(parts), "key")
			sql = append(sql, createIndexSQL(t, name, parts, ix.Include, false, pred))
			prechecks = append(prechecks, groupQuery(t, partSQL(parts), pred))
		}
	}
	return Fix{
		SQL:           strings.Join(sql, "\n"),
		Precheck:      strings.Join(prechecks, "\n"),
		NoTransaction: canBuildConcurrently(t),
	}
}

// collisionQuery lists the groups of rows that already escape the index
// through the hole: they would make a new unique index fail to build, and
// their number is how often the hole has been used.
func collisionQuery(h *hole) string {
	t, ix := h.Table, h.Index
	var group []string
	for _, p := range ix.Parts {
		if len(h.Parts) == 1 && nullsafe.SamePart(p, h.Parts[0]) {
			continue
		}
		group = append(group, p.String())
	}
	var nulls []catalog.Expr
	for _, p := range h.Parts {
		nulls = append(nulls, nullsafe.IsNullOf(p))
	}
	var where []catalog.Expr
	if len(nulls) == 1 {
		where = nulls
	} else {
		where = []catalog.Expr{&catalog.Or{Args: nulls}}
	}
	where = append(where, presentConjuncts(h.Optional)...)
	where = append(where, catalog.Conjuncts(ix.Predicate)...)
	return groupQuery(t, group, where)
}

// groupQuery lists the groups of rows matching where that agree on every
// expression of group: the rows a unique index over group would refuse.
func groupQuery(t *catalog.Table, group []string, where []catalog.Expr) string {
	sel := "count(*)"
	groupBy := ""
	if len(group) > 0 {
		sel = strings.Join(group, ", ") + ", count(*)"
		groupBy = " GROUP BY " + strings.Join(group, ", ")
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s%s HAVING count(*) > 1;", sel, t.DisplayName(), whereSQL(where), groupBy)
}

// canBuildConcurrently is false for a partitioned table: PostgreSQL cannot
// build or drop its indexes CONCURRENTLY.
func canBuildConcurrently(t *catalog.Table) bool { return t.Kind != catalog.Partitioned }

func concurrently(t *catalog.Table) string {
	if canBuildConcurrently(t) {
		return "CONCURRENTLY "
	}
	return ""
}

// buildNote says how the index statements must be run.
func buildNote(t *catalog.Table) string {
	if canBuildConcurrently(t) {
		return "Run each statement on its own, outside a transaction (CONCURRENTLY)."
	}
	return "A partitioned table cannot build indexes CONCURRENTLY, so this blocks writes while it runs; on a large " +
		"table build the index on each partition CONCURRENTLY and attach it to an index created ON ONLY the parent."
}

// createIndexSQL renders CREATE UNIQUE INDEX [CONCURRENTLY].
func createIndexSQL(t *catalog.Table, name string, parts []catalog.IndexPart, include []string, nnd bool, pred []catalog.Expr) string {
	cols := make([]string, len(parts))
	for i, p := range parts {
		cols[i] = p.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE UNIQUE INDEX %s%s ON %s (%s)", concurrently(t), catalog.QuoteIdent(name), t.DisplayName(), strings.Join(cols, ", "))
	if len(include) > 0 {
		inc := make([]string, len(include))
		for i, c := range include {
			inc[i] = catalog.QuoteIdent(c)
		}
		b.WriteString(" INCLUDE (" + strings.Join(inc, ", ") + ")")
	}
	if nnd {
		b.WriteString(" NULLS NOT DISTINCT")
	}
	if len(pred) > 0 {
		b.WriteString(" WHERE " + whereSQL(pred))
	}
	b.WriteString(";")
	return b.String()
}

// whereSQL renders conjuncts joined by AND, parenthesising only those that
// bind looser than AND, so a generated WHERE reads as a person writes it.
func whereSQL(conj []catalog.Expr) string {
	parts := make([]string, len(conj))
	for i, c := range conj {
		switch c.(type) {
		case *catalog.Or, *catalog.And, *catalog.Unknown:
			parts[i] = "(" + c.String() + ")"
		default:
			parts[i] = c.String()
		}
	}
	return strings.Join(parts, " AND ")
}

// qualifiedIndex names an index for DROP INDEX and ALTER INDEX, which look
// it up through the search path unless qualified.
func qualifiedIndex(t *catalog.Table, name string) string {
	if t.Schema == "public" || t.Schema == "" {
		return catalog.QuoteIdent(name)
	}
	return catalog.QuoteIdent(t.Schema) + "." + catalog.QuoteIdent(name)
}

// partSQL renders key parts as a select or GROUP BY list.
func partSQL(parts []catalog.IndexPart) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.String()
	}
	return out
}

func partList(parts []catalog.IndexPart) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = partWords(p)
	}
	return out
}

// nameWord is a key part as a fragment of a generated name, as PostgreSQL
// does it: the column, or "expr" for an expression.
func nameWord(p catalog.IndexPart) string {
	if p.Column != "" {
		return p.Column
	}
	return "expr"
}

func joinWords(parts []catalog.IndexPart) string {
	w := make([]string, len(parts))
	for i, p := range parts {
		w[i] = nameWord(p)
	}
	return strings.Join(w, "_")
}

// subsets lists the non-empty subsets of parts, smallest first.
func subsets(parts []catalog.IndexPart) [][]catalog.IndexPart {
	var out [][]catalog.IndexPart
	n := len(parts)
	if n > 10 {
		n = 10 // 1023 indexes is already absurd; the caveat says so
	}
	for size := 1; size <= n; size++ {
		for mask := 1; mask < 1<<n; mask++ {
			if bitsSet(mask) != size {
				continue
			}
			var s []catalog.IndexPart
			for i := 0; i < n; i++ {
				if mask&(1<<i) != 0 {
					s = append(s, parts[i])
				}
			}
			out = append(out, s)
		}
	}
	return out
}

func bitsSet(m int) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// namer hands out relation and constraint names that fit in 63 bytes and
// clash with nothing in the schema nor with each other.
type namer struct {
	schema *catalog.Schema
	table  *catalog.Table
	names  *nameIndex
	taken  map[string]bool
}

func newNamer(p *Pass, t *catalog.Table) *namer {
	n := &namer{table: t, taken: map[string]bool{}}
	if p != nil && p.Catalog != nil {
		n.schema = p.Catalog.Schema(t.Schema)
		n.names = p.names
	}
	return n
}

func (n *namer) relation(base, label string) string {
	return n.pick(base, label, func(name string) bool {
		switch {
		case n.names != nil && n.schema != nil:
			return n.names.relationExists(n.schema, name)
		case n.schema != nil:
			return n.schema.RelationExists(name)
		}
		return n.table.Index(name) != nil || name == n.table.Name
	})
}

func (n *namer) constraint(base, label string) string {
	return n.pick(base, label, func(name string) bool {
		switch {
		case n.names != nil && n.schema != nil:
			return n.names.constraintExists(n.schema, name)
		case n.schema != nil:
			return n.schema.ConstraintExists(name)
		}
		return n.table.Check(name) != nil
	})
}

// pick is catalog.ChooseName for base and label, also avoiding the names
// this namer has already handed out.
func (n *namer) pick(base, label string, exists func(string) bool) string {
	name := catalog.ChooseName(base, "", label, func(name string) bool { return n.taken[name] || exists(name) })
	n.taken[name] = true
	return name
}
