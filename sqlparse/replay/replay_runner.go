package replay

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/layout"
	"github.com/idemcheck/idemcheck/sqlparse/parse"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// A migration tool creates its own bookkeeping table (golang-migrate's
// schema_migrations, Flyway's flyway_schema_history, ...) before it runs
// the first migration, so a migration may read or alter it without ever
// creating it. Each layout lists its tool's tables (layout.Def.Bookkeeping);
// when a statement of a file of that layout names one that does not exist,
// replay creates it first, as the tool did, instead of noting that it is
// missing. A tree that creates the table itself (a dump) creates it as
// written, and one whose tool is not known (plain) gets the note.

// setLayout makes the tables of the layout of the statement being replayed
// the ones runnerTable may create.
func (r *Replayer) setLayout(l layout.Layout) {
	if l == r.layout {
		return
	}
	r.layout, r.runner = l, nil
	if d := layout.Lookup(l); d != nil {
		r.runner = d.Bookkeeping
	}
}

// resolveTable is ResolveTable, with the layout's bookkeeping tables
// created on first use.
func (r *Replayer) resolveTable(schema, name string) *catalog.Table {
	if t := r.cat.ResolveTable(schema, name); t != nil {
		return t
	}
	return r.runnerTable(schema, name)
}

// runnerTable creates the bookkeeping table called name when the current
// layout's tool has one, in the schema the tool uses (the first of the
// search path, which a qualified name must name), and returns it; nil
// otherwise.
func (r *Replayer) runnerTable(schema, name string) *catalog.Table {
	if len(r.runner) == 0 || r.inRunner {
		return nil
	}
	target := r.firstSchema()
	if target == nil || schema != "" && schema != target.Name {
		return nil
	}
	for _, ddl := range r.runner {
		p := parse.Parse(scan.NewStatement(r.st.File, ddl, 0))
		if p.Err != nil || len(p.Stmts) == 0 {
			continue // a bookkeeping table the parser refuses is a bug, caught by its test
		}
		cs := p.Stmts[0].Stmt.GetCreateStmt()
		if cs == nil || cs.Relation.Relname != name {
			continue
		}
		r.createRunnerTable(p.Stmts)
		t := target.Tables[name]
		if t != nil {
			pos := r.pos
			t.Pos = pos
			for _, ix := range t.Indexes {
				ix.Pos = pos
			}
		}
		return t
	}
	return nil
}

// createRunnerTable applies a bookkeeping table's statements quietly, and
// puts the statement being replayed back.
func (r *Replayer) createRunnerTable(stmts []*pg.RawStmt) {
	st, pos, span, diags := r.st, r.pos, r.span, slices.Clone(r.diags)
	r.inRunner = true
	r.quiet++
	defer func() {
		r.st, r.pos, r.span, r.diags = st, pos, span, diags
		r.inRunner = false
		r.quiet--
	}()
	for _, raw := range stmts {
		r.apply(raw.Stmt)
	}
}

// firstSchema is the first existing schema of the search path, where an
// unqualified CREATE TABLE goes.
func (r *Replayer) firstSchema() *catalog.Schema {
	for _, sn := range r.cat.SearchPath {
		if s := r.cat.Schema(sn); s != nil {
			return s
		}
	}
	return nil
}
