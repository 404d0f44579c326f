package audit

import (
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/catalog"
)

// keyHistory follows every unique index of a replayed history from its drop
// to the end of the tree, for unique-dropped: which unique indexes were left
// on the table by the drop, which were created on it later, and whether a
// column of the dropped key, or the table, went away. Tables and columns are
// followed through renames by identity, so that "the same key" survives a
// RENAME COLUMN and a column dropped and added again is a new column.
type keyHistory struct {
	cat    *catalog.Catalog
	tables map[string]*tableTrack // by current "schema.table"
	drops  []*dropEpisode
	fresh  int
	// testedIsNull holds the columns some index predicate tests with
	// "c IS NULL", by table and column identity: the structure of a
	// soft-delete column.
	testedIsNull map[*tableTrack]map[string]bool
	// addedIn is the migration file that added each column ALTER TABLE
	// added, by table and column identity.
	addedIn map[*tableTrack]map[string]string
}

// tableTrack is one table as the history goes: its current name, the
// identity of each current column, and its unique indexes now.
type tableTrack struct {
	schema, name string
	cols         map[string]string // current column name -> identity
	alive        []*trackedIndex
}

// trackedIndex is a unique index as created (ix, in the column names of its
// time, renamed with RENAME INDEX) and in column identities (canon), which is
// what keys are compared in.
type trackedIndex struct {
	ix    *catalog.Index
	canon *catalog.Index
	// file is the migration that created it.
	file string
}

// dropEpisode is one drop of a unique index and what the rest of the tree
// did about it.
type dropEpisode struct {
	change  catalog.Change
	table   *tableTrack
	dropped trackedIndex
	// before are the table's unique indexes left by the drop; after are
	// those created on it later (this statement's included).
	before, after []*trackedIndex
	// keyGone is the change that dropped a column of the key, or the table.
	keyGone *catalog.Change
	// withColumn names a column that is not part of the key (a predicate
	// or INCLUDE column) whose drop took the index with it.
	withColumn string
	// last is the last change to the table after the drop, for the end
	// state's position.
	last *catalog.Change
	// relaxed is a key column the drop's own migration let be NULL (DROP
	// NOT NULL), with the change: the key is being retired.
	relaxed   string
	relaxedAt catalog.Pos
	// reindexed is a plain index a later migration created over exactly the
	// dropped key: someone looked at the key again and let it repeat.
	reindexed *trackedIndex
}

// followDrops follows the changes replay recorded on its way to cat and
// returns every drop of a unique index of its own table (a partition's copy
// goes with its parent's), with what happened after it.
func followDrops(cat *catalog.Catalog, changes []catalog.Change) *keyHistory {
	h := &keyHistory{cat: cat, tables: map[string]*tableTrack{}, testedIsNull: map[*tableTrack]map[string]bool{},
		addedIn: map[*tableTrack]map[string]string{}}
	for i := range changes {
		h.apply(changes[i])
	}
	return h
}

func (h *keyHistory) apply(ch catalog.Change) {
	if ch.Kind == catalog.ChangeCreateTable {
		h.tables[qualified(ch.Schema, ch.Table)] = &tableTrack{schema: ch.Schema, name: ch.Table, cols: map[string]string{}}
		return
	}
	if ch.Kind == catalog.ChangeRenameTable {
		h.renameTable(ch)
		return
	}
	if ch.Table == "" {
		return
	}
	t := h.table(ch.Schema, ch.Table)
	for _, ep := range h.drops {
		if ep.table == t && ep.keyGone == nil && ep.change.Pos != ch.Pos {
			last := ch
			ep.last = &last
		}
	}
	switch ch.Kind {
	case catalog.ChangeDropTable:
		h.keyGoneAll(t, ch, nil)
		delete(h.tables, qualified(ch.Schema, ch.Table))
	case catalog.ChangeAddColumn:
		id := h.freshID(ch.Object)
		t.cols[ch.Object] = id
		if h.addedIn[t] == nil {
			h.addedIn[t] = map[string]string{}
		}
		h.addedIn[t][id] = ch.File
	case catalog.ChangeRenameColumn:
		t.cols[ch.Object] = t.col(ch.OldName)
		delete(t.cols, ch.OldName)
	case catalog.ChangeDropColumn:
		id := t.col(ch.Object)
		h.keyGoneAll(t, ch, func(ep *dropEpisode) bool { return readsColumn(ep.dropped.canon.Parts, id) })
		for _, ep := range h.drops {
			if ep.table == t && ep.keyGone == nil && ep.change.Pos == ch.Pos {
				ep.withColumn = ch.Object
			}
		}
		delete(t.cols, ch.Object)
	case catalog.ChangeCreateIndex, catalog.ChangeAddConstraint:
		h.created(t, ch)
	case catalog.ChangeDropNotNull:
		id := t.col(ch.Object)
		for _, ep := range h.drops {
			if ep.table == t && ep.keyGone == nil && ep.relaxed == "" && ch.File == ep.change.File &&
				readsColumn(ep.dropped.canon.Parts, id) {
				ep.relaxed, ep.relaxedAt = ch.Object, ch.Pos
			}
		}
	case catalog.ChangeDropIndex, catalog.ChangeDropConstraint:
		h.removed(t, ch)
	case catalog.ChangeRenameIndex:
		for _, ti := range t.alive {
			if ch.Index != nil && ti.ix.Pos == ch.Index.Pos {
				ti.ix = ch.Index
			}
		}
	}
}

// table is the track of a table, started the first time the history names
// it when its creation was not replayed.
func (h *keyHistory) table(schema, name string) *tableTrack {
	q := qualified(schema, name)
	t := h.tables[q]
	if t == nil {
		t = &tableTrack{schema: schema, name: name, cols: map[string]string{}}
		h.tables[q] = t
	}
	return t
}

func (h *keyHistory) renameTable(ch catalog.Change) {
	oldSchema, oldName := ch.Schema, ch.OldName
	if s, n, ok := strings.Cut(ch.OldName, "."); ok {
		oldSchema, oldName = s, n // ALTER TABLE ... SET SCHEMA records the old qualified name
	}
	t := h.table(oldSchema, oldName)
	delete(h.tables, qualified(oldSchema, oldName))
	t.schema, t.name = ch.Schema, ch.Table
	h.tables[qualified(ch.Schema, ch.Table)] = t
}

// freshID is a new column identity: a column added by ALTER TABLE is a new
// column even when an older one had its name.
func (h *keyHistory) freshID(name string) string {
	h.fresh++
	return name + "#" + strconv.Itoa(h.fresh)
}

// col is the identity of a current column; a column the history never
// added (created with its table) is known by its name.
func (t *tableTrack) col(name string) string {
	if id, ok := t.cols[name]; ok {
		return id
	}
	t.cols[name] = name
	return name
}

// nameOf is the current name of a column identity, "" when it is gone.
func (t *tableTrack) nameOf(id string) string {
	for name, cid := range t.cols {
		if cid == id {
			return name
		}
	}
	return ""
}

// keyGoneAll marks the open drops of t whose key went away with ch (all of
// them when affected is nil).
func (h *keyHistory) keyGoneAll(t *tableTrack, ch catalog.Change, affected func(*dropEpisode) bool) {
	for _, ep := range h.drops {
		if ep.table == t && ep.keyGone == nil && (affected == nil || affected(ep)) {
			gone := ch
			ep.keyGone = &gone
		}
	}
}

// created records a new index: its predicate is evidence of soft-delete
// columns, and a unique one is alive on the table and a candidate for every
// open drop there.
func (h *keyHistory) created(t *tableTrack, ch catalog.Change) {
	if ch.Index == nil {
		return
	}
	ti := &trackedIndex{ix: ch.Index, canon: t.canonical(ch.Index), file: ch.File}
	for _, c := range catalog.Conjuncts(ti.canon.Predicate) {
		if nt, ok := nullsafe.Normalise(c).(*catalog.NullTest); ok && nt.IsNull {
			if ref, ok := nt.Arg.(*catalog.ColumnRef); ok {
				if h.testedIsNull[t] == nil {
					h.testedIsNull[t] = map[string]bool{}
				}
				h.testedIsNull[t][ref.Name] = true
			}
		}
	}
	if ch.Index.ParentIndex != "" {
		return
	}
	if !isIndexCreation(ch) {
		for _, ep := range h.drops {
			if ep.table == t && ep.keyGone == nil && ep.reindexed == nil && ch.File != ep.change.File &&
				ti.canon.Predicate == nil && sameKey(ti.canon.Parts, ep.dropped.canon.Parts) {
				ep.reindexed = ti
			}
		}
		return
	}
	t.alive = append(t.alive, ti)
	for _, ep := range h.drops {
		if ep.table == t && ep.keyGone == nil {
			ep.after = append(ep.after, ti)
		}
	}
}

// removed takes a dropped index off the table and opens a drop episode
// when it was unique.
func (h *keyHistory) removed(t *tableTrack, ch catalog.Change) {
	if ch.Index == nil {
		return
	}
	var keep []*trackedIndex
	for _, ti := range t.alive {
		if ti.ix.Pos != ch.Index.Pos || ti.ix.Name != ch.Index.Name {
			keep = append(keep, ti)
		}
	}
	t.alive = keep
	if !isUniqueDrop(ch) {
		return
	}
	h.drops = append(h.drops, &dropEpisode{
		change:  ch,
		table:   t,
		dropped: trackedIndex{ix: ch.Index, canon: t.canonical(ch.Index), file: ch.File},
		before:  append([]*trackedIndex(nil), keep...),
	})
}

// canonical is a copy of ix with every column named by its identity.
func (t *tableTrack) canonical(ix *catalog.Index) *catalog.Index {
	cp := *ix
	cp.Parts = make([]catalog.IndexPart, len(ix.Parts))
	for i, p := range ix.Parts {
		if p.Column != "" {
			p.Column = t.col(p.Column)
		}
		p.Expr = catalog.RenameColumns(p.Expr, t.col)
		cp.Parts[i] = p
	}
	cp.Predicate = catalog.RenameColumns(ix.Predicate, t.col)
	return &cp
}

// readsColumn reports whether a key part reads the column identity.
func readsColumn(parts []catalog.IndexPart, id string) bool {
	for _, p := range parts {
		for _, c := range p.Columns() {
			if c == id {
				return true
			}
		}
	}
	return false
}

func qualified(schema, name string) string { return schema + "." + name }
