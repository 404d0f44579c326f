// Package witness builds, from the model alone, the evidence for a hole in
// a unique index: two INSERT statements whose rows the index should refuse
// as duplicates and does not (the key parts equal, the hole part NULL,
// every other column a value the table's NOT NULLs, CHECKs, domains, enums
// and defaults accept), the statements that make a copy of the table in an
// empty database, a query that checks the rows are what the finding says,
// and the finding's first fix without CONCURRENTLY. Package prove runs it
// on a scratch server; every format prints it.
//
// It imports no database driver and no parser: a witness is built for
// every finding of every run, whether or not --prove is given.
package witness

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/parallel"
)

// Attach gives every finding about a hole (a finding with an Escape) its
// witness. Build only reads the catalog, so a schema with many holes has
// them built on every core.
func Attach(findings []audit.Finding, cat *catalog.Catalog) {
	var todo []int
	for i := range findings {
		if findings[i].Escape != nil && findings[i].Witness == nil {
			todo = append(todo, i)
		}
	}
	parallel.Each(len(todo), parallel.Workers(len(todo), witnessesPerWorker), func(k int) {
		findings[todo[k]].Witness = Build(cat, findings[todo[k]])
	})
}

// witnessesPerWorker is how many witnesses make another goroutine worth
// starting.
const witnessesPerWorker = 4

// Build makes the witness of one finding with an Escape.
func Build(cat *catalog.Catalog, f audit.Finding) *audit.Witness {
	esc := f.Escape
	w := &audit.Witness{Index: esc.Index.Name, Table: esc.Table.DisplayName(), OnConflict: esc.Query != nil}
	// Each hole part is tried in turn as the one left NULL: with one of
	// them NULL another unique index may still refuse the rows, with
	// another not. The first part whose rows no other index refuses wins;
	// when every part's rows meet such an index, the first part's are kept,
	// and PostgreSQL shows who refuses them.
	var chosen *builder
	var rows []string
	var err error
	best := 0
	//
	// The rows share, first, the columns the first fix keys on beyond the
	// index (so that they are the duplicates the fix is for); when that
	// leaves them refused by another index, they are tried without.
	shared := fixKeyColumns(f.Fixes)
	done := false
	for i := 0; i < len(esc.Parts) && !done; i++ {
		for _, share := range [][]string{shared, nil} {
			b := newBuilder(cat, esc, i, share)
			r, blocked, e := b.rows()
			// Best: rows no other index refuses; then rows at all.
			rank := 0
			switch {
			case e == nil && blocked == "":
				rank = 2
			case e == nil:
				rank = 1
			}
			if chosen == nil || rank > best {
				chosen, rows, err, best = b, r, e, rank
			}
			// The statement of on-conflict-hole decides which part is
			// NULL.
			if done = (blocked == "" && e == nil) || esc.Query != nil; done || len(share) == 0 {
				break
			}
		}
	}
	if err != nil {
		w.NotBuilt = err.Error()
	} else {
		w.Rows = rows
	}
	w.Notes = chosen.notes
	w.Setup = chosen.setup()
	w.Verify = verifyQuery(esc, esc.Parts[chosen.holeIdx])
	w.InIndex = inIndexQuery(esc, esc.Parts[chosen.holeIdx])
	w.Fix, w.Alternatives = fixesOf(f.Fixes)
	return w
}

// class says how a witness row fills a column.
type class int

const (
	omitted class = iota // left out: NULL, or the default the copy keeps
	hole                 // written NULL: the hole part
	key                  // a value, the same in both rows, never NULL
	needed               // a value, never NULL (NOT NULL without a default the copy keeps)
	auto                 // identity or serial: left to PostgreSQL
	fixed                // written by the statement itself (on-conflict-hole), not by the witness
)

// column is what the builder knows of one column.
type column struct {
	c  *catalog.Column
	ct colType
	cl class
	// keepDefault is set when the copy keeps the column's default and a
	// row that leaves the column out gets it.
	keepDefault bool
	// omitted is the value the column takes when a row leaves it out: NULL,
	// its default when that is a literal, or a value that is merely known
	// not to be NULL.
	omitted val
	// equal is set for a column a key part reads: both rows give it the
	// same value.
	equal bool
}

// constraint is something a witness row must satisfy.
type constraint struct {
	expr catalog.Expr
	// mustBeTrue is set for the index predicate and the key-part tests (a
	// WHERE keeps a row only when it is TRUE); a CHECK passes unless FALSE.
	mustBeTrue bool
	cols       []string
	// what names it for a note: "CHECK positive_amount".
	what string
}

type builder struct {
	cat *catalog.Catalog
	esc *audit.Escape
	// holeIdx is the part of esc.Parts the rows leave NULL.
	holeIdx int
	t       *catalog.Table
	cols    map[string]*column
	order   []string
	cons    []constraint
	notes   []string
	// params are the columns a statement of on-conflict-hole writes
	// through a parameter.
	params map[string]bool
	// avoided are the other unique indexes whose predicate the rows were
	// asked to leave false, so that those indexes do not see them.
	avoided map[*catalog.Index]bool
}

// newBuilder reads the table for a witness through esc.Parts[holeIdx].
// shared are columns outside the index that the rows must also share: the
// first fix keys on them (an exclusive arc's other arm, the parent that
// still scopes the rows), so rows differing there are not the duplicates
// the fix is for.
func newBuilder(cat *catalog.Catalog, esc *audit.Escape, holeIdx int, shared []string) *builder {
	b := &builder{cat: cat, esc: esc, holeIdx: holeIdx, t: esc.Table, cols: map[string]*column{}, avoided: map[*catalog.Index]bool{}}
	for _, c := range b.t.Columns {
		col := &column{c: c, ct: resolveType(cat, c.Type)}
		switch {
		case c.Generated:
			col.cl = auto
		case c.Identity || (isSerialDefault(c.Default) && integerTypes[canonical(col.ct.base)]):
			col.cl = auto
		case c.Default != "" && runnableDefault(c.Default):
			col.keepDefault = true
		}
		col.omitted = nullVal
		if col.keepDefault || col.cl == auto {
			col.omitted = defaultVal(c.Default, col.ct)
		}
		if c.IsNotNull() && !col.keepDefault && col.cl != auto {
			col.cl = needed
		}
		b.cols[c.Name] = col
		b.order = append(b.order, c.Name)
	}
	if q := esc.Query; q != nil {
		b.onConflictColumns(q)
	}
	b.keyParts()
	for _, name := range shared {
		if col := b.cols[name]; col != nil && !col.equal && col.cl != fixed {
			col.equal = true
			if col.cl != hole {
				col.cl = key
			}
		}
	}
	b.addConstraint(esc.Index.Predicate, true, "the index's WHERE clause")
	for _, ck := range b.t.Checks {
		if ck.Validated {
			b.addConstraint(ck.Expr, false, "CHECK "+ck.Name)
		} else {
			b.notes = append(b.notes, "CHECK "+ck.Name+" is NOT VALID: the rows stand for rows written before it was added, which it never checked")
		}
	}
	return b
}

// onConflictColumns marks what an INSERT ... ON CONFLICT writes: a column
// filled by a parameter is the witness's to choose, one filled by the
// statement's own value is fixed, and one the statement leaves out takes
// its default, which the copy then must keep.
func (b *builder) onConflictColumns(q *catalog.Query) {
	b.params = map[string]bool{}
	for _, p := range q.Params {
		if c := q.Column(b.t, p.Position); c != "" {
			b.params[c] = true
		}
	}
	for _, name := range b.order {
		col := b.cols[name]
		_, written := q.Inserted(b.t, name)
		switch {
		case b.params[name]:
			if col.cl == auto {
				col.cl = needed
			}
		case written:
			col.cl, col.omitted = fixed, unknownVal
		default:
			col.keepDefault = col.c.Default != "" && col.cl != auto
			col.omitted = defaultVal(col.c.Default, col.ct)
			if col.c.Default == "" {
				col.omitted = nullVal
			}
			if col.cl == needed {
				col.cl = omitted
			}
		}
	}
}

// partExpr is a key part as an expression: a generated column is its
// generation expression.
func (b *builder) partExpr(p catalog.IndexPart) catalog.Expr {
	if p.Column == "" {
		return p.Expr
	}
	if col := b.cols[p.Column]; col != nil && col.c.Generation != nil {
		return col.c.Generation
	}
	return &catalog.ColumnRef{Name: p.Column}
}

// keyParts sets the hole part NULL and every other key part to one
// value both rows share.
func (b *builder) keyParts() {
	holePart := b.esc.Parts[b.holeIdx]
	for _, p := range b.esc.Index.Parts {
		isHole := samePart(p, holePart)
		e := b.partExpr(p)
		for _, c := range catalog.ColumnsOf(e) {
			if col := b.cols[c]; col != nil {
				col.equal = true
			}
		}
		if ref, ok := e.(*catalog.ColumnRef); ok {
			if col := b.cols[ref.Name]; col != nil && col.cl != fixed {
				switch {
				case isHole:
					col.cl = hole
				case col.cl != hole:
					col.cl = key
				}
				continue
			}
		}
		b.addConstraint(&catalog.NullTest{Arg: e, IsNull: isHole}, true, "the key part "+p.String())
	}
}

func samePart(a, b catalog.IndexPart) bool {
	if a.Column != "" || b.Column != "" {
		return a.Column == b.Column
	}
	return catalog.Equal(a.Expr, b.Expr)
}

func (b *builder) addConstraint(e catalog.Expr, mustBeTrue bool, what string) {
	if e == nil {
		return
	}
	b.cons = append(b.cons, constraint{expr: e, mustBeTrue: mustBeTrue, cols: b.reads(e), what: what})
}

// reads lists the columns e depends on, through generated columns.
func (b *builder) reads(e catalog.Expr) []string {
	var out []string
	var visit func(catalog.Expr, int)
	visit = func(e catalog.Expr, depth int) {
		for _, c := range catalog.ColumnsOf(e) {
			if slices.Contains(out, c) {
				continue
			}
			out = append(out, c)
			if col := b.cols[c]; col != nil && col.c.Generation != nil && depth < 4 {
				visit(col.c.Generation, depth+1)
			}
		}
	}
	visit(e, 0)
	return out
}

// rows builds the two statements of the witness. blocked names another
// unique index that refuses the second row whatever the witness does.
func (b *builder) rows() (rows []string, blocked string, err error) {
	var first, second assignment
	if first, err = b.solve(); err != nil {
		return nil, "", err
	}
	second = first
	for b.esc.Query == nil {
		var by *catalog.Index
		if second, by, err = b.secondRow(first); err != nil {
			return nil, "", err
		}
		if by == nil {
			break
		}
		// Rows outside that index's predicate escape it: ask for them,
		// once per index. When no such rows exist, the index stops these
		// duplicates, which PostgreSQL will show.
		if by.Predicate == nil || b.avoided[by] {
			blocked = by.Name
			break
		}
		b.avoided[by] = true
		b.addConstraint(&catalog.BoolTest{Arg: by.Predicate, Test: "NOT TRUE"}, true, "the WHERE clause of "+by.Name+" (left false)")
		retry, err := b.solve()
		if err != nil {
			b.cons = b.cons[:len(b.cons)-1]
			blocked = by.Name
			break
		}
		first = retry
	}
	b.doubts(first)
	if q := b.esc.Query; q != nil {
		stmt, err := b.statement(q, first)
		if err != nil {
			return nil, "", err
		}
		return []string{stmt, stmt}, "", nil
	}
	return []string{b.insert(first), b.insert(second)}, blocked, nil
}

// assignment is one row's chosen values, by column.
type assignment map[string]val

// value is a column's value in row a: chosen, or what the column takes
// when a row leaves it out (a generated column is computed).
func (b *builder) value(a assignment, name string, depth int) val {
	if v, ok := a[name]; ok {
		return v
	}
	col := b.cols[name]
	if col == nil {
		return unknownVal
	}
	if col.c.Generation != nil {
		if depth > 4 {
			return unknownVal
		}
		return eval(col.c.Generation, func(n string) val { return b.value(a, n, depth+1) })
	}
	return col.omitted
}

func (b *builder) env(a assignment) env {
	return func(name string) val { return b.value(a, name, 0) }
}

// statement is the on-conflict statement with each parameter replaced by
// its column's value in a.
func (b *builder) statement(q *catalog.Query, a assignment) (string, error) {
	if q.SQL == "" {
		return "", fmt.Errorf("the statement sits inside a DO block or function body, which the witness cannot run on its own")
	}
	byText := map[string]string{}
	for _, p := range q.Params {
		if c := q.Column(b.t, p.Position); c != "" {
			byText[p.Text] = b.value(a, c, 0).sql
		}
	}
	var out strings.Builder
	last := 0
	for _, p := range q.Params {
		v, ok := byText[p.Text]
		if !ok {
			return "", fmt.Errorf("parameter %s is not a value the statement writes into a column, so the witness cannot give it a value of its type", p.Text)
		}
		if p.Start < last || p.End > len(q.SQL) {
			return "", fmt.Errorf("parameter %s could not be located in the statement", p.Text)
		}
		out.WriteString(q.SQL[last:p.Start])
		out.WriteString(v)
		last = p.End
	}
	out.WriteString(q.SQL[last:])
	s := strings.TrimSpace(out.String())
	if !strings.HasSuffix(s, ";") {
		s += ";"
	}
	return s, nil
}

// insert renders one row: the columns the witness chose values for, in
// table order, and the hole part as an explicit NULL.
func (b *builder) insert(a assignment) string {
	var names, values []string
	for _, name := range b.order {
		col := b.cols[name]
		v, chosen := a[name]
		switch {
		case col.cl == hole:
			v = nullVal
		case !chosen:
			continue
		case col.cl == omitted && v.sql == col.omitted.sql && !col.omitted.unknown:
			continue
		}
		names = append(names, catalog.QuoteIdent(name))
		values = append(values, v.sql)
	}
	if len(names) == 0 {
		return "INSERT INTO " + b.t.DisplayName() + " DEFAULT VALUES;"
	}
	head := fmt.Sprintf("INSERT INTO %s (%s)", b.t.DisplayName(), strings.Join(names, ", "))
	tail := fmt.Sprintf("VALUES (%s);", strings.Join(values, ", "))
	if len(head)+len(tail) > 80 {
		return head + "\n" + tail
	}
	return head + " " + tail
}

// doubts notes the constraints the evaluator could not decide for the
// chosen row: the scratch server decides them. What an on-conflict
// statement writes itself is not the witness's to doubt.
func (b *builder) doubts(a assignment) {
	for _, c := range b.cons {
		if b.allFixed(c.cols) {
			continue
		}
		if eval(c.expr, b.env(a)).unknown {
			b.notes = append(b.notes, "idemcheck does not evaluate "+c.what+" for these rows; the scratch server does (--prove)")
		}
	}
}

// allFixed reports whether every column of cols is written by the
// statement itself.
func (b *builder) allFixed(cols []string) bool {
	for _, name := range cols {
		if col := b.cols[name]; col == nil || col.cl != fixed {
			return false
		}
	}
	return len(cols) > 0
}
