package audit

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/audit/internal/prose"
	"github.com/idemcheck/idemcheck/catalog"
)

// UniqueDropped flags a migration that drops a unique index or constraint
// when nothing in the rest of the tree restores uniqueness over the same key
// or part of it while the key's columns still exist (docs/rules.md).
var UniqueDropped = &Rule{
	ID:    "unique-dropped",
	Title: "a migration drops a unique index with no replacement",
	Doc: `Dropping a unique index or constraint removes the guarantee at once, for every
writer. Sometimes that is the intent; often the index was meant to be replaced (a
new column order, a partial index, NULLS NOT DISTINCT) and the replacement lives in
a later migration, or never landed.

A drop is judged against the whole tree that follows it:
- silent when a column of the key, or the table, is dropped in the same
  statement or later: rows without that column have nothing left to keep unique
  (ALTER TABLE t DROP COLUMN id, ADD PRIMARY KEY (a, b));
- silent when a unique index over the same key or part of it exists after the
  drop, created before it, in the same migration or later, and keeps unique the
  rows that matter: its predicate may leave out only rows the dropped index never
  protected (a NULL key part) and deleted rows. Uniqueness among live rows is
  enough: a partial index WHERE deleted_at IS NULL, or NULLS NOT DISTINCT over a
  soft-delete column, restores it. A soft-delete column is a nullable timestamp
  that an index predicate tests with IS NULL; its name alone never decides;
- silent when that index is over an expression of the key's columns
  (lower(name) for name): equal keys give equal values;
- info when the only replacement is over a strict superset of the key:
  uniqueness narrowed, per tenant for instance;
- info when the tree declares the drop deliberate: its own migration re-keys
  the table (a unique index under the dropped one's chosen name, or one that
  reads a column the same migration adds: a new key, or the same key over the
  rows a new flag selects), or lets a column of the key be NULL; the
  migration's name says it removes a unique index or constraint
  (..._drop_friendly_id_unique_constraint); or a later migration indexes the
  same key again without UNIQUE;
- a warning otherwise, at the drop, with the table as the tree leaves it as a
  related location. A replacement that only fails to restore the key is no
  declaration: NULLS NOT DISTINCT forgotten over a soft-delete column, a
  predicate over a column the table already had, the index rebuilt without
  UNIQUE, the primary key moved off an id that stays.

A unique index also disappears when a column it reads only in its predicate or
INCLUDE list is dropped, or with DROP ... CASCADE: the key still exists, and the
rule judges that drop the same way.

Create the replacement first, in the same migration, then drop the old one. On a
live table build it CONCURRENTLY so writes go on.

` + wordListDoc(
		wordList{"a migration named for removing uniqueness has a word of", removalWords},
		wordList{"and a word of", uniquenessWords},
		wordList{"file names that say nothing (the folder's name is read instead)", genericMigrationNames},
	),
	Bad: `DROP INDEX CONCURRENTLY events_org_tx;
-- the new index is in next week's migration, or never`,
	Good: `CREATE UNIQUE INDEX CONCURRENTLY events_org_tx_nnd ON events (org, tx)
    NULLS NOT DISTINCT;
DROP INDEX CONCURRENTLY events_org_tx;
ALTER INDEX events_org_tx_nnd RENAME TO events_org_tx;`,
	Severity: Warning,
	Needs:    Migrations,
	Run:      runUniqueDropped,
}

func runUniqueDropped(p *Pass) {
	h := followDrops(p.Catalog, p.History.Changes)
	for _, ep := range h.drops {
		if ep.keyGone != nil {
			continue
		}
		v := h.verdict(ep)
		if v.restored {
			continue
		}
		p.Report(droppedFinding(h, ep, v))
	}
}

// isUniqueDrop is a change that removed a unique index of its own table (a
// partition's copy goes with its parent's, which reports).
func isUniqueDrop(ch catalog.Change) bool {
	return (ch.Kind == catalog.ChangeDropIndex || ch.Kind == catalog.ChangeDropConstraint) &&
		ch.Index != nil && (ch.Index.Unique || ch.Index.Primary) && ch.Index.ParentIndex == ""
}

// dropVerdict is what the rest of the tree did about one drop.
type dropVerdict struct {
	restored bool
	// narrowed is the replacement over a strict superset of the key, and
	// extra its parts beyond the key, in its own column names.
	narrowed *trackedIndex
	extra    []string
	// misses are later unique indexes over part of the key that do not
	// restore it, each with why.
	misses []miss
}

type miss struct {
	index *trackedIndex
	why   string
}

// verdict judges every unique index left by the drop or created after it.
func (h *keyHistory) verdict(ep *dropEpisode) dropVerdict {
	var v dropVerdict
	for i, cand := range append(append([]*trackedIndex(nil), ep.before...), ep.after...) {
		r := h.replaces(ep, cand)
		switch {
		case r.restores:
			return dropVerdict{restored: true}
		case r.extra != nil && v.narrowed == nil:
			v.narrowed, v.extra = cand, r.extra
		case r.why != "" && i >= len(ep.before):
			v.misses = append(v.misses, miss{cand, r.why})
		}
	}
	return v
}

// replacement is how one unique index stands in for a dropped one.
type replacement struct {
	restores bool
	extra    []string // parts beyond the key: uniqueness narrowed
	why      string   // why it does not restore the key, for indexes that share a part with it
}

// replaces judges v against the dropped index u, both in column identities,
// over the rows that matter: those u kept unique, among live rows when the
// table has a soft-delete column. Whether v has a NULL hole of its own is
// for nullable-key to judge (a partial split beside it may close it).
func (h *keyHistory) replaces(ep *dropEpisode, cand *trackedIndex) replacement {
	u, v := ep.dropped.canon, cand.canon
	shared := false
	for _, p := range v.Parts {
		shared = shared || nullsafe.HasPart(u, p) || functionOfKey(u, p)
	}
	if !shared {
		return replacement{}
	}
	// The predicate may leave out only rows u never kept unique (a NULL key
	// part, rows outside u's own predicate) and deleted rows.
	had := catalog.Conjuncts(u.Predicate)
	written := catalog.Conjuncts(cand.ix.Predicate)
	for i, c := range catalog.Conjuncts(v.Predicate) {
		if nullsafe.PredicateImplied(c, had) {
			continue
		}
		nt, ok := nullsafe.Normalise(c).(*catalog.NullTest)
		if ok && !nt.IsNull && !u.NullsNotDistinct && exprIsKeyPart(nt.Arg, u) {
			continue
		}
		if ok && nt.IsNull && h.isSoftDelete(ep.table, nt.Arg) {
			continue
		}
		return replacement{why: "its predicate " + conjunctText(written, i) + " leaves out rows that " +
			ep.dropped.ix.Name + " kept unique"}
	}
	// Parts beyond u's key narrow the uniqueness, unless they are the same
	// on every row that matters: a constant, or a soft-delete column under
	// NULLS NOT DISTINCT (NULL on every live row, and NULLs equal).
	var extra []string
	for i, p := range v.Parts {
		switch {
		case nullsafe.HasPart(u, p), functionOfKey(u, p), nullsafe.ConstantPart(p), fixedByPredicate(p, had, v.Predicate):
		case v.NullsNotDistinct && h.isSoftDelete(ep.table, nullsafe.PartExpr(p)):
		case h.isSoftDelete(ep.table, nullsafe.PartExpr(p)):
			return replacement{why: "its key part " + cand.ix.PartNames()[i] + " is NULL on every live row, " +
				"so live rows escape it (NULLS NOT DISTINCT would keep them)"}
		default:
			extra = append(extra, cand.ix.PartNames()[i])
		}
	}
	if len(extra) == 0 {
		return replacement{restores: true}
	}
	for _, p := range u.Parts {
		if !nullsafe.HasPart(v, p) && !keyedThrough(u, v, p) {
			return replacement{why: "its key " + keyWords(cand.ix) + " is neither " + keyWords(ep.dropped.ix) +
				" nor part of it"}
		}
	}
	return replacement{extra: extra}
}

// keyedThrough reports whether v keys on the part p of u through an
// expression of u's columns that reads p (lower(version) for version):
// equal values of p give equal keys, so v is still over a superset of u.
func keyedThrough(u, v *catalog.Index, p catalog.IndexPart) bool {
	if p.Column == "" {
		return false
	}
	for _, q := range v.Parts {
		if functionOfKey(u, q) && slices.Contains(q.Columns(), p.Column) {
			return true
		}
	}
	return false
}

// functionOfKey reports whether p is an expression over plain column parts
// of u only (lower(name) beside a key over name): equal keys give equal
// values, so an index unique over it is unique over those columns too.
func functionOfKey(u *catalog.Index, p catalog.IndexPart) bool {
	cols := p.Columns()
	if p.Column != "" || len(cols) == 0 {
		return false
	}
	for _, c := range cols {
		if !nullsafe.HasPart(u, catalog.IndexPart{Column: c}) {
			return false
		}
	}
	return true
}

// isSoftDelete reports whether e is a soft-delete column of t.
func (h *keyHistory) isSoftDelete(t *tableTrack, e catalog.Expr) bool {
	ref, ok := e.(*catalog.ColumnRef)
	return ok && h.softDelete(t, ref.Name)
}

// fixedByPredicate reports whether a predicate pins the part to one non-NULL
// value (part = constant), so it cannot tell rows apart.
func fixedByPredicate(p catalog.IndexPart, had []catalog.Expr, pred catalog.Expr) bool {
	for _, c := range append(append([]catalog.Expr(nil), had...), catalog.Conjuncts(pred)...) {
		cmp, ok := c.(*catalog.Compare)
		if !ok || cmp.Op != "=" {
			continue
		}
		for _, pair := range [][2]catalog.Expr{{cmp.Left, cmp.Right}, {cmp.Right, cmp.Left}} {
			if k, ok := pair[1].(*catalog.Const); ok && !k.Null && catalog.Equal(pair[0], nullsafe.PartExpr(p)) {
				return true
			}
		}
	}
	return false
}

// conjunctText is the i-th conjunct of a predicate as written.
func conjunctText(conjuncts []catalog.Expr, i int) string {
	if i < len(conjuncts) {
		return "(" + conjuncts[i].String() + ")"
	}
	return "(?)"
}

func exprIsKeyPart(e catalog.Expr, ix *catalog.Index) bool {
	for _, p := range ix.Parts {
		if catalog.Equal(nullsafe.PartExpr(p), e) {
			return true
		}
	}
	return false
}

// droppedFinding is the warning at the drop, or the info when uniqueness
// was narrowed to a superset of the key.
func droppedFinding(h *keyHistory, ep *dropEpisode, v dropVerdict) Finding {
	ch, ix := ep.change, ep.dropped.ix
	f := Finding{
		Object:  ch.Schema + "." + ch.Table + "." + ix.Name,
		Columns: ix.PartNames(),
		Pos:     ch.Pos,
	}
	if !ix.Pos.IsZero() {
		f.Related = append(f.Related, Related{Pos: ix.Pos, Message: "unique index " + ix.Name + " created here"})
	}
	head := droppedHead(ep)
	if v.narrowed != nil {
		n := v.narrowed.ix
		f.Message = fmt.Sprintf("%s and %s %s replaces it: uniqueness narrowed to per-%s, so two %s with the same %s "+
			"and different %s are both accepted",
			head, catalog.QuoteIdent(n.Name), keyWords(n), perWords(v.extra), rowNoun(&catalog.Table{Name: ch.Table}),
			prose.List(ix.PartNames(), "and"), prose.List(v.extra, "or"))
		f.Related = append(f.Related, Related{Pos: n.Pos, Message: "replaced here by " + n.Name + " " + keyWords(n)})
		return f.WithSeverity(Info)
	}
	if why, related := h.declaredDrop(ep); why != "" {
		f.Message = fmt.Sprintf("%s%s, so the loss is intended: from here on rows with the same %s are all accepted",
			head, why, prose.List(ix.PartNames(), "and"))
		f.Related = append(f.Related, related...)
		return f.WithSeverity(Info)
	}
	f.Message = fmt.Sprintf("%s and no migration restores uniqueness over %s or part of it, "+
		"so from here on rows with the same %s are all accepted",
		head, keyWords(ix), prose.List(ix.PartNames(), "and"))
	for _, m := range v.misses {
		f.Related = append(f.Related, Related{Pos: m.index.ix.Pos,
			Message: "unique index " + m.index.ix.Name + " " + keyWords(m.index.ix) + " created here does not restore it: " + m.why})
	}
	if pos, how := endState(h, ep); !pos.IsZero() {
		f.Related = append(f.Related, Related{Pos: pos, Message: ep.table.name + " as the tree leaves it (" + how +
			"): no unique index over " + keyWords(ix) + " or part of it"})
	}
	return f
}

// endState is where the table's end state shows: its last change after the
// drop, or where it was created when the drop was the last change.
func endState(h *keyHistory, ep *dropEpisode) (catalog.Pos, string) {
	if ep.last != nil {
		return ep.last.Pos, "last changed here"
	}
	if t := h.cat.ResolveTable(ep.table.schema, ep.table.name); t != nil {
		return t.Pos, "created here"
	}
	return catalog.Pos{}, ""
}

// droppedHead says what was dropped and how.
func droppedHead(ep *dropEpisode) string {
	ch, ix := ep.change, ep.dropped.ix
	what := "unique index"
	switch {
	case ix.Primary:
		what = "primary key"
	case ix.Constraint != "":
		what = "unique constraint"
	}
	how := "is dropped"
	if ep.withColumn != "" {
		how = "goes with the dropped column " + ep.withColumn
	}
	table := catalog.QuoteIdent(ch.Table)
	if ch.Schema != "public" && ch.Schema != "" {
		table = catalog.QuoteIdent(ch.Schema) + "." + table
	}
	return fmt.Sprintf("%s.%s %s: the %s %s", table, catalog.QuoteIdent(ix.Name), keyWords(ix), what, how)
}

// perWords is "nid" for one extra part and "(nid, kind)" for several.
func perWords(extra []string) string {
	if len(extra) == 1 {
		return extra[0]
	}
	return "(" + strings.Join(extra, ", ") + ")"
}

// declaredDrop says how the tree declares a drop deliberate, or "" when it
// does not:
//   - the drop's own migration re-keys the table: it creates a unique index
//     under the dropped one's chosen name, or one that reads a column the
//     same migration added (a new key, or the same key over the rows a new
//     flag selects);
//   - the same migration lets a column of the key be NULL, retiring it;
//   - the migration's name says it removes a unique index or constraint;
//   - a later migration indexes the same key again without UNIQUE.
//
// A drop declared so is info: the loss is real, and the change that made it
// says it is meant. A replacement of the same migration that only fails to
// restore the key (NULLS NOT DISTINCT forgotten over a soft-delete column, a
// predicate over an old column, the primary key moved off an id that
// stays) is no declaration: that is the mistake this rule is for.
func (h *keyHistory) declaredDrop(ep *dropEpisode) (string, []Related) {
	file := ep.change.File
	for _, cand := range append(append([]*trackedIndex(nil), ep.before...), ep.after...) {
		if cand.file != file || cand.file == "" || !h.rekeys(ep, cand) {
			continue
		}
		n := cand.ix
		what := catalog.QuoteIdent(n.Name) + " " + keyWords(n)
		if n.Predicate != nil {
			what += " WHERE " + n.Predicate.String()
		}
		return " and the same migration makes " + what + " unique instead",
			[]Related{{Pos: n.Pos, Message: "unique index " + n.Name + " " + keyWords(n) + " made here instead"}}
	}
	if ep.relaxed != "" {
		return " and the same migration lets " + ep.relaxed + " be NULL, retiring the key",
			[]Related{{Pos: ep.relaxedAt, Message: ep.relaxed + " may be NULL from here"}}
	}
	if name := migrationName(file); removalNamed(name) {
		return " in a migration named for it (" + name + ")", nil
	}
	if r := ep.reindexed; r != nil {
		return ", and a later migration indexes " + keyWords(r.ix) + " again without UNIQUE (" + r.ix.Name + ")",
			[]Related{{Pos: r.ix.Pos, Message: "indexed again without UNIQUE here: " + r.ix.Name}}
	}
	return "", nil
}

// migrationName is the name a migration's author gave it: the file's name
// without its extension, or its folder's when the file has a generic name
// (Prisma's migration.sql, diesel's up.sql).
func migrationName(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	base = strings.TrimSuffix(base, ".up")
	if slices.Contains(genericMigrationNames, strings.ToLower(base)) {
		return filepath.Base(filepath.Dir(file))
	}
	return base
}

// removalNamed reports whether a migration's name says it removes a unique
// index or constraint: a removal word and a uniqueness word
// (bulk_action_item_drop_friendly_id_unique_constraint,
// remove_unused_indexes).
func removalNamed(name string) bool {
	words := nameWords(name)
	return anyWord(words, removalWords) && anyWord(words, uniquenessWords)
}

// rekeys reports whether cand, created in the drop's own migration, re-keys
// the table on purpose: it takes the dropped index's chosen name (not the
// {table}_pkey every primary key gets), or it reads a column that migration
// added.
func (h *keyHistory) rekeys(ep *dropEpisode, cand *trackedIndex) bool {
	old := ep.dropped.ix
	if cand.ix.Name == old.Name && !cand.ix.Primary && !old.Primary && old.Name != ep.table.name+"_pkey" {
		return true
	}
	cols := catalog.ColumnsOf(cand.canon.Predicate)
	for _, p := range cand.canon.Parts {
		cols = append(cols, p.Columns()...)
	}
	for _, c := range cols {
		if f, ok := h.addedIn[ep.table][c]; ok && f == ep.change.File {
			return true
		}
	}
	return false
}
