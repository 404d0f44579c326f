package fixes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/audit/internal/prose"
	"github.com/idemcheck/idemcheck/catalog"
)

// Hole is what the fixes close: the key parts of a unique index through
// which rows escape it.
type Hole struct {
	Table *catalog.Table
	Index *catalog.Index
	// Parts are the key parts that may be NULL and that no other index
	// covers.
	Parts []catalog.IndexPart
	// StandIns are, for each of Parts in order, the columns that still
	// scope the rows where it is NULL from outside the key (the parent of
	// what the part references); nil for a part without any.
	StandIns [][]string
	// Optional are the index's other nullable parts, unique only when
	// present: a fix must leave rows without them alone.
	Optional []catalog.IndexPart
	// Link is set when every key part is a reference (a link row, an owner
	// key with its type column): a NULL end links nothing, so NOT NULL
	// comes first.
	Link bool
	// Markers are the soft-delete markers among Parts: NULL on every live
	// row, so the fix makes live rows unique and never makes them NOT NULL.
	Markers []catalog.IndexPart
	// Twins pair a part with the other arm of an exclusive arc nothing
	// declares ({user_id, viewer_id}): another unique index keeps the rows
	// without the part unique through the other arm, and only a CHECK that
	// one of them is set closes the hole.
	Twins [][2]string
}

// ForHole returns the fixes for a hole, most preferable first (docs/rules.md
// "Fixes, in the order a user should consider them"). Where NULL may be a
// value (a scope, an actor, an attribute, a plain reference beside an
// identity), the fixes that keep NULL and make it count come first: NULLS
// NOT DISTINCT on PostgreSQL 15 and later, then the portable split; NOT
// NULL, which changes the data model, comes last (UseData moves it first on
// evidence). In a link row or an owner key a NULL end links nothing, so NOT
// NULL comes first there. A soft-delete marker gets the partial index over
// the live rows, then NULLS NOT DISTINCT, and never NOT NULL. An index that
// also has parts unique only when present gets NULLS NOT DISTINCT only
// among the rows where they are present: over all rows it would make rows
// without them collide too. A hole on one arm of an exclusive arc gets
// only the index for the other arm: NOT NULL and NULLS NOT DISTINCT would
// both break such a table.
func ForHole(h *Hole, names *Namer, version int) []Fix {
	if version == 0 {
		version = DefaultPGVersion
	}
	arc := false
	for _, part := range h.Parts {
		if len(nullsafe.ArcIntent(h.Table, part)) > 0 {
			arc = true
		}
	}
	if arc {
		return []Fix{arcFix(h, names)}
	}
	if len(h.Twins) > 0 {
		return []Fix{declareArcFix(h, names)}
	}
	if h.StandInColumns() != nil {
		fixes := []Fix{standInFix(h, names)}
		if AllColumns(h.Parts) && len(h.Markers) == 0 {
			fixes = append(fixes, notNullFix(h, names))
		}
		return fixes
	}
	if len(h.Markers) > 0 {
		fixes := []Fix{liveRowsFix(h, names, version)}
		if version >= 15 {
			nnd := nndFix(h, names)
			if len(h.Optional) == 0 {
				m := prose.List(prose.Parts(h.Markers), "and")
				nnd.Caveat = "NULL then equals NULL: live rows (no " + m + ") are unique, and deleted rows stay apart by " +
					"the time they were deleted (two deleted in the same instant collide). " + BuildNote(h.Table)
			}
			fixes = append(fixes, nnd)
		}
		return fixes
	}
	var fixes []Fix
	if version >= 15 {
		fixes = append(fixes, nndFix(h, names))
	}
	fixes = append(fixes, Split(h, names))
	if AllColumns(h.Parts) {
		notNull := notNullFix(h, names)
		if h.Link {
			notNull.Caveat = "A NULL end links nothing, so this comes first here. " + notNull.Caveat
			fixes = append([]Fix{notNull}, fixes...)
		} else {
			fixes = append(fixes, notNull)
		}
	}
	return fixes
}

// AllColumns reports whether every part is a plain column (no expression).
func AllColumns(parts []catalog.IndexPart) bool {
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
func notNullFix(h *Hole, names *Namer) Fix {
	t := h.Table
	table := t.DisplayName()
	var sql []string
	var cols []string
	for _, p := range h.Parts {
		ck := catalog.QuoteIdent(names.Constraint(t.Name+"_"+p.Column, "not_null_tmp"))
		col := catalog.QuoteIdent(p.Column)
		cols = append(cols, col+" IS NULL")
		sql = append(sql,
			fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s CHECK (%s IS NOT NULL) NOT VALID;", table, ck, col),
			fmt.Sprintf("ALTER TABLE %s VALIDATE CONSTRAINT %s;", table, ck),
			fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s SET NOT NULL;", table, col),
			fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s;", table, ck))
	}
	return Fix{
		Title: "make " + prose.List(prose.Parts(h.Parts), "and") + " NOT NULL",
		SQL:   strings.Join(sql, "\n"),
		kind:  notNull,
		Caveat: "Right only when a row without " + prose.List(prose.Parts(h.Parts), "or") +
			" should not exist: this changes the data model, and breaks the application wherever NULL means " +
			"\"none\". VALIDATE fails while any row holds NULL (the precheck lists them): backfill " +
			"them first, with values that do not collide, and make sure the application always sets the column.",
		Precheck: fmt.Sprintf("SELECT %s FROM %s WHERE %s;", strings.Join(PartSQL(h.Index.Parts), ", "), table, strings.Join(cols, " OR ")),
	}
}

// nndFix rebuilds the index NULLS NOT DISTINCT (PostgreSQL 15+) without
// blocking writes; an index backing a UNIQUE constraint is swapped in by one
// ALTER TABLE so the constraint never disappears.
func nndFix(h *Hole, names *Namer) Fix {
	if len(h.Optional) > 0 {
		return presentNNDFix(h, names)
	}
	t, ix := h.Table, h.Index
	newName := names.Relation(ix.Name, "nnd")
	create := CreateIndex(t, newName, ix.Parts, ix.Include, true, catalog.Conjuncts(ix.Predicate))
	var rest []string
	caveat := "NULL then equals NULL: right when NULL means \"no scope\" (at most one such row), wrong when NULL " +
		"means \"not applicable to this row\". " + BuildNote(t)
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
			fmt.Sprintf("DROP INDEX %s%s;", Concurrently(t), QualifiedIndex(t, ix.Name)),
			fmt.Sprintf("ALTER INDEX %s RENAME TO %s;", QualifiedIndex(t, newName), catalog.QuoteIdent(ix.Name)))
	}
	return Fix{
		Title:         "rebuild " + ix.Name + " NULLS NOT DISTINCT (PostgreSQL 15 and later)",
		SQL:           strings.Join(append([]string{create}, rest...), "\n"),
		Caveat:        caveat,
		Precheck:      CollisionQuery(h),
		NoTransaction: CanBuildConcurrently(t),
	}
}

// Split adds, for each combination of NULL key parts, a partial unique
// index over the remaining parts: portable to every version.
func Split(h *Hole, names *Namer) Fix {
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
		name := names.Relation(ix.Name, strings.Join(label, "_")+"_null")
		sql = append(sql, CreateIndex(t, name, keep, ix.Include, false, conj))
	}
	f := Fix{
		Title:         "add a partial unique index for rows where " + prose.List(prose.Parts(h.Parts), "or") + " is NULL",
		SQL:           strings.Join(sql, "\n"),
		Caveat:        "Keeps NULL meaning \"absent\" and works on every version. " + BuildNote(t),
		Precheck:      CollisionQuery(h),
		NoTransaction: CanBuildConcurrently(t),
	}
	if len(h.Parts) > 2 {
		f.Caveat += fmt.Sprintf(" With %d nullable key parts the split grows as 2^k (%d indexes here): prefer making columns NOT NULL or NULLS NOT DISTINCT.",
			len(h.Parts), len(sql))
	}
	if len(h.Optional) > 0 {
		opt := prose.List(prose.Parts(h.Optional), "or")
		f.Caveat += " The split leaves rows without " + opt + " alone, as the index does."
	}
	return f
}

// presentNNDFix adds, beside an index with parts that are unique only when
// present, a NULLS NOT DISTINCT index over the same key among the rows
// where those parts are present: it makes the hole's NULLs count without
// making rows without the optional parts collide. The old index stays, so
// ON CONFLICT clauses that name its columns still find it.
func presentNNDFix(h *Hole, names *Namer) Fix {
	t, ix := h.Table, h.Index
	opt := prose.List(prose.Parts(h.Optional), "and")
	pred := append(presentConjuncts(h.Optional), catalog.Conjuncts(ix.Predicate)...)
	name := names.Relation(ix.Name, "nnd")
	return Fix{
		Title: "add a NULLS NOT DISTINCT unique index for rows where " + opt + " " + isAre(h.Optional) +
			" present (PostgreSQL 15 and later)",
		SQL: CreateIndex(t, name, ix.Parts, ix.Include, true, pred),
		Caveat: "Among rows with " + opt + ", NULL in " + prose.List(prose.Parts(h.Parts), "or") + " then equals NULL: right when " +
			"NULL means \"none\" (at most one such row), wrong when it means \"not applicable to this row\". Rows without " +
			opt + " stay unique only when present, as the index has them; " + ix.Name + " stays beside it. " + BuildNote(t),
		Precheck:      CollisionQuery(h),
		NoTransaction: CanBuildConcurrently(t),
	}
}

// isAre is "is" for one part and "are" for more.
func isAre(parts []catalog.IndexPart) string {
	if len(parts) == 1 {
		return "is"
	}
	return "are"
}

// liveRowsFix replaces an index with a soft-delete marker in its key by a
// partial unique index over its other parts among the live rows (the
// marker IS NULL): live rows are unique, deleted ones free. Other parts of
// the hole stay holes in the new index unless it closes them too: NULLS
// NOT DISTINCT on PostgreSQL 15 and later, the split below. The old index
// is dropped and the new one takes its name (a UNIQUE constraint cannot be
// partial, so the constraint is dropped).
func liveRowsFix(h *Hole, names *Namer, version int) Fix {
	t, ix := h.Table, h.Index
	var keep, rest []catalog.IndexPart
	for _, p := range ix.Parts {
		if !nullsafe.PartIn(p, h.Markers) {
			keep = append(keep, p)
		}
	}
	for _, p := range h.Parts {
		if !nullsafe.PartIn(p, h.Markers) {
			rest = append(rest, p)
		}
	}
	var live []catalog.Expr
	for _, m := range h.Markers {
		if !nullsafe.PredicateImplied(nullsafe.IsNullOf(m), catalog.Conjuncts(ix.Predicate)) {
			live = append(live, nullsafe.IsNullOf(m))
		}
	}
	pred := append(live, catalog.Conjuncts(ix.Predicate)...)
	newName := names.Relation(ix.Name, "live")
	nnd := len(rest) > 0 && version >= 15 && len(h.Optional) == 0
	sql := []string{CreateIndex(t, newName, keep, ix.Include, nnd, pred)}
	if len(rest) > 0 && !nnd {
		liveIx := &catalog.Index{Name: newName, Unique: true, Parts: keep, Include: ix.Include, Predicate: conjunction(pred)}
		sql = append(sql, Split(&Hole{Table: t, Index: liveIx, Parts: rest, Optional: h.Optional}, names).SQL)
	}
	if ix.Constraint != "" {
		sql = append(sql, fmt.Sprintf("ALTER TABLE %s DROP CONSTRAINT %s;", t.DisplayName(), catalog.QuoteIdent(ix.Constraint)))
	} else {
		sql = append(sql, fmt.Sprintf("DROP INDEX %s%s;", Concurrently(t), QualifiedIndex(t, ix.Name)))
	}
	sql = append(sql, fmt.Sprintf("ALTER INDEX %s RENAME TO %s;", QualifiedIndex(t, newName), catalog.QuoteIdent(ix.Name)))
	markers := prose.List(prose.Parts(h.Markers), "and")
	liveWhere := Where(live)
	if len(live) == 0 {
		liveWhere = Where(catalog.Conjuncts(ix.Predicate))
	}
	caveat := "Live rows (no " + markers + ") are unique over " + prose.List(prose.Parts(keep), "and") +
		"; deleted rows may repeat, as soft delete needs. If live rows may share a key by design (a versioned " +
		"resource), keep the index and say so with an ignore directive."
	if len(live) == 0 {
		caveat = "The index's own WHERE keeps only live rows, where " + markers + " is always NULL, so with " + markers +
			" in the key it enforces nothing; without it, live rows are unique over " + prose.List(prose.Parts(keep), "and") + "."
	}
	caveat += " An INSERT ... ON CONFLICT on these columns must say WHERE " + liveWhere + " to use it as its arbiter."
	if ix.Constraint != "" {
		caveat += " A UNIQUE constraint cannot be partial: the constraint " + ix.Constraint + " is dropped (drop the foreign " +
			"keys that reference it first) and the index takes its name."
	}
	var group []string
	for _, p := range keep {
		group = append(group, p.String())
	}
	return Fix{
		Title:         "replace " + ix.Name + " by a unique index over the live rows (WHERE " + liveWhere + ")",
		SQL:           strings.Join(sql, "\n"),
		Caveat:        caveat + " NOT NULL is never the fix: it would end soft delete. " + BuildNote(t),
		Precheck:      groupQuery(t, group, pred),
		NoTransaction: CanBuildConcurrently(t),
	}
}

// conjunction is the conjuncts as one expression, nil for none.
func conjunction(conj []catalog.Expr) catalog.Expr {
	switch len(conj) {
	case 0:
		return nil
	case 1:
		return conj[0]
	}
	return &catalog.And{Args: conj}
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
func arcFix(h *Hole, names *Namer) Fix {
	t := h.Table
	var validate []string
	for _, c := range h.Parts {
		for _, ck := range nullsafe.ArcChecks(t, c) {
			if !ck.Validated && !slices.Contains(validate, ck.Name) {
				validate = append(validate, ck.Name)
			}
		}
	}
	var sql []string
	for _, name := range validate {
		sql = append(sql, fmt.Sprintf("ALTER TABLE %s VALIDATE CONSTRAINT %s;", t.DisplayName(), catalog.QuoteIdent(name)))
	}
	f := nullRowsFix(h, names, sql, func(i int) []string { return nullsafe.ArcIntent(t, h.Parts[i]) })
	f.Title = "add the unique index for the other arm of the exclusive arc"
	caveat := "A CHECK makes these rows the other kind, so NULL here means \"not applicable\": NOT NULL or NULLS NOT " +
		"DISTINCT would break the table. "
	if len(validate) > 0 {
		caveat += "VALIDATE fails while a row breaks the CHECK; it scans the table without blocking writes. "
	}
	f.Caveat = caveat + BuildNote(t)
	return f
}

// standInFix adds, for rows where a part is NULL, a unique index over the
// other key parts and the columns that still scope those rows (the parent
// of what the part references): NULLS NOT DISTINCT, or the split over the
// key alone, would join rows of different parents.
func standInFix(h *Hole, names *Namer) Fix {
	f := nullRowsFix(h, names, nil, func(i int) []string { return h.StandIns[i] })
	all := h.StandInColumns()
	f.Title = "add a unique index for rows where " + prose.List(prose.Parts(h.Parts), "or") + " is NULL, per " +
		prose.List(all, "and")
	f.Caveat = "Rows without " + prose.List(prose.Parts(h.Parts), "or") + " still belong to a " + prose.List(all, "and") +
		", which the key does not name: NULLS NOT DISTINCT, or a split over the key alone, would make rows of " +
		"different " + prose.List(all, "and") + " collide. " + BuildNote(h.Table)
	return f
}

// StandInColumns are the columns, over every part of the hole, that scope its
// NULL rows from outside the key; nil when there are none.
func (h *Hole) StandInColumns() []string {
	var out []string
	for _, cols := range h.StandIns {
		for _, c := range cols {
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
func nullRowsFix(h *Hole, names *Namer, first []string, others func(i int) []string) Fix {
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
			name := names.Relation(ix.Name, nameWord(c)+"_null")
			sql = append(sql, CreateIndex(t, name, keep, ix.Include, false, pred))
			prechecks = append(prechecks, groupQuery(t, PartSQL(keep), pred))
			continue
		}
		for _, d := range partners {
			parts := append(append([]catalog.IndexPart(nil), keep...), catalog.IndexPart{Column: d})
			name := names.Relation(t.Name+"_"+JoinWords(parts), "key")
			sql = append(sql, CreateIndex(t, name, parts, ix.Include, false, pred))
			prechecks = append(prechecks, groupQuery(t, PartSQL(parts), pred))
		}
	}
	return Fix{
		SQL:           strings.Join(sql, "\n"),
		Precheck:      strings.Join(prechecks, "\n"),
		NoTransaction: CanBuildConcurrently(t),
	}
}

// CollisionQuery lists the groups of rows that already escape the index
// through the hole: they would make a new unique index fail to build, and
// their number is how often the hole has been used.
func CollisionQuery(h *Hole) string {
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
	var conj []catalog.Expr
	for _, c := range where {
		if !nullsafe.PredicateImplied(c, conj) {
			conj = append(conj, c)
		}
	}
	where = conj
	sel := "count(*)"
	groupBy := ""
	if len(group) > 0 {
		sel = strings.Join(group, ", ") + ", count(*)"
		groupBy = " GROUP BY " + strings.Join(group, ", ")
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s%s HAVING count(*) > 1;", sel, t.DisplayName(), Where(where), groupBy)
}

// declareArcFix adds, for each undeclared exclusive arc, the CHECK that one
// of its arms is set, NOT VALID and then validated: with it the rows
// without one arm are provably the other kind, which the twin index keeps
// unique. NOT NULL and NULLS NOT DISTINCT would break the other kind.
func declareArcFix(h *Hole, names *Namer) Fix {
	t := h.Table
	var sql, nulls, arms []string
	for _, tw := range h.Twins {
		ck := catalog.QuoteIdent(names.Constraint(t.Name+"_"+tw[0]+"_"+tw[1], "arc"))
		a, b := catalog.QuoteIdent(tw[0]), catalog.QuoteIdent(tw[1])
		sql = append(sql,
			fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s CHECK (%s IS NOT NULL OR %s IS NOT NULL) NOT VALID;", t.DisplayName(), ck, a, b),
			fmt.Sprintf("ALTER TABLE %s VALIDATE CONSTRAINT %s;", t.DisplayName(), ck))
		nulls = append(nulls, "("+a+" IS NULL AND "+b+" IS NULL)")
		arms = append(arms, tw[0]+" or "+tw[1])
	}
	return Fix{
		Title: "declare that every row has " + prose.List(arms, "and"),
		SQL:   strings.Join(sql, "\n"),
		Caveat: "Each row is one kind or the other, and the index of each kind keeps its rows unique; the CHECK says " +
			"so, which closes the hole. VALIDATE fails while a row has neither (a reference set to NULL by ON DELETE " +
			"SET NULL leaves such rows): the precheck lists them, to delete or fix first. NOT NULL and NULLS NOT " +
			"DISTINCT would break the rows of the other kind.",
		Precheck: fmt.Sprintf("SELECT * FROM %s WHERE %s;", t.DisplayName(), strings.Join(nulls, " OR ")),
	}
}
