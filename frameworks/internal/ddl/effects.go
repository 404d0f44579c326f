package ddl

import (
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// Effect is what one statement of a SQL fix does to its table, found by
// replaying the statement on a copy of the table. A framework writes the
// statement in its own words when the effect is one it has words for
// (Rails' add_index, change_column_null, ...), and runs the SQL otherwise.
// Reading the effect instead of the fix's text keeps the framework fixes
// in step with the SQL fixes audit writes: same names, same order.
type Effect struct {
	SQL          string // the statement, without its semicolon
	Concurrently bool
	Added        []*catalog.Index
	Dropped      []*catalog.Index
	// Changed are indexes that kept their name but not their definition
	// (a UNIQUE constraint swapped onto a new index).
	Changed []*catalog.Index
	// Renamed holds the old and new name of an index renamed in place.
	Renamed                 [2]string
	SetNotNull, DropNotNull []string
	ChecksAdded             []*catalog.Check
	ChecksDropped           []*catalog.Check
	ChecksValidated         []*catalog.Check
}

// Effects replays the statements of sql, one at a time, on a copy of
// table t and says what each changed. A statement that replay refuses is
// returned with an empty effect.
func Effects(t *catalog.Table, sql string) []Effect {
	cat := catalog.New()
	s := cat.AddSchema(t.Schema)
	cat.SearchPath = []string{t.Schema, "public"}
	work := cloneTable(t)
	cat.AddTable(work)
	r := sqlparse.NewReplayer(cat)
	res := sqlparse.Split(sqlparse.Input{Path: "fix.sql", Text: sql})
	var out []Effect
	for _, st := range res.Statements {
		before := cloneTable(work)
		r.Apply(st)
		after := s.Tables[work.Name]
		if after == nil {
			out = append(out, Effect{SQL: st.Text})
			continue
		}
		work = after
		out = append(out, diff(st.Text, before, after))
	}
	return out
}

// count is the number of things the statement changed.
func (e Effect) count() int {
	n := len(e.Added) + len(e.Dropped) + len(e.Changed) + len(e.SetNotNull) + len(e.DropNotNull) + len(e.ChecksAdded) +
		len(e.ChecksDropped) + len(e.ChecksValidated)
	if e.Renamed[0] != "" {
		n++
	}
	return n
}

// Only reports whether the statement changed exactly one thing.
func (e Effect) Only() bool { return e.count() == 1 }

func diff(sql string, before, after *catalog.Table) Effect {
	e := Effect{SQL: sql, Concurrently: strings.Contains(strings.ToUpper(sql), "CONCURRENTLY")}
	oldIx := map[string]*catalog.Index{}
	for _, ix := range before.Indexes {
		oldIx[ix.Name] = ix
	}
	newIx := map[string]*catalog.Index{}
	for _, ix := range after.Indexes {
		newIx[ix.Name] = ix
		if old := oldIx[ix.Name]; old != nil && (old.Constraint != ix.Constraint || !sameParts(old, ix)) {
			c := *ix
			e.Changed = append(e.Changed, &c)
		}
		if oldIx[ix.Name] == nil {
			// A copy: later statements of the fix change the live index
			// (a rename), and the effect is this statement's.
			c := *ix
			e.Added = append(e.Added, &c)
		}
	}
	for _, ix := range before.Indexes {
		if newIx[ix.Name] == nil {
			e.Dropped = append(e.Dropped, ix)
		}
	}
	if len(e.Added) == 1 && len(e.Dropped) == 1 && sameDefinition(e.Added[0], e.Dropped[0]) {
		e.Renamed = [2]string{e.Dropped[0].Name, e.Added[0].Name}
		e.Added, e.Dropped = nil, nil
	}
	for _, c := range after.Columns {
		if old := before.Column(c.Name); old != nil && old.NotNull != c.NotNull {
			if c.NotNull {
				e.SetNotNull = append(e.SetNotNull, c.Name)
			} else {
				e.DropNotNull = append(e.DropNotNull, c.Name)
			}
		}
	}
	for _, ck := range after.Checks {
		old := before.Check(ck.Name)
		switch {
		case old == nil:
			c := *ck
			e.ChecksAdded = append(e.ChecksAdded, &c)
		case !old.Validated && ck.Validated:
			e.ChecksValidated = append(e.ChecksValidated, ck)
		}
	}
	for _, ck := range before.Checks {
		if after.Check(ck.Name) == nil {
			e.ChecksDropped = append(e.ChecksDropped, ck)
		}
	}
	return e
}

// sameDefinition reports whether two plain indexes (not backing a
// constraint) are the same but for their names.
func sameDefinition(a, b *catalog.Index) bool {
	return a.Constraint == "" && b.Constraint == "" && sameParts(a, b)
}

// sameParts compares what an index enforces.
func sameParts(a, b *catalog.Index) bool {
	if a.Unique != b.Unique || a.NullsNotDistinct != b.NullsNotDistinct ||
		len(a.Parts) != len(b.Parts) || exprString(a.Predicate) != exprString(b.Predicate) {
		return false
	}
	for i := range a.Parts {
		if a.Parts[i].String() != b.Parts[i].String() {
			return false
		}
	}
	return true
}

func exprString(e catalog.Expr) string {
	if e == nil {
		return ""
	}
	return e.String()
}

// cloneTable copies a table deeply enough that replay on the copy leaves
// the original alone.
func cloneTable(t *catalog.Table) *catalog.Table {
	c := *t
	c.Columns = make([]*catalog.Column, len(t.Columns))
	for i, col := range t.Columns {
		cc := *col
		c.Columns[i] = &cc
	}
	c.Indexes = make([]*catalog.Index, len(t.Indexes))
	for i, ix := range t.Indexes {
		ic := *ix
		c.Indexes[i] = &ic
	}
	c.Checks = make([]*catalog.Check, len(t.Checks))
	for i, ck := range t.Checks {
		cc := *ck
		c.Checks[i] = &cc
	}
	return &c
}

// Kind says what a SQL fix does, for ordering the framework fixes as
// docs/rules.md's "Fixes" orders them when there is no data to look at: keep NULL
// meaningful first (NULLS NOT DISTINCT, then the split), NOT NULL last.
type Kind int

const (
	NullsNotDistinct Kind = iota // rebuilds the index NULLS NOT DISTINCT
	AddsIndex                    // the split, or the other arm of an exclusive arc
	OtherFix
	NotNull // makes the nullable parts NOT NULL
)

// Classify reads a fix's kind from its effects.
func Classify(effects []Effect) Kind {
	kind := OtherFix
	for _, e := range effects {
		for _, ix := range e.Added {
			if ix.NullsNotDistinct {
				return NullsNotDistinct
			}
			if ix.Unique {
				kind = AddsIndex
			}
		}
		if len(e.SetNotNull) > 0 && kind == OtherFix {
			kind = NotNull
		}
	}
	return kind
}
