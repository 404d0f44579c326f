package replay

import (
	"fmt"
	"sort"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/layout"
	"github.com/idemcheck/idemcheck/sqlparse/parse"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// Replayer applies DDL statements, one at a time and in migration order, to
// a catalog, simulating what PostgreSQL's own catalog would hold afterwards.
// A statement that refers to a missing object changes nothing and yields a
// Note carrying the SQLSTATE the server would have raised; replay goes on.
type Replayer struct {
	cat  *catalog.Catalog
	hist *catalog.History

	// The statement being applied, its first token's position, the byte
	// range in st.Text of the parse tree being applied, and the
	// diagnostics gathered so far; reset by Apply.
	st    *scan.Statement
	pos   catalog.Pos
	span  [2]int
	diags []scan.Diagnostic

	// quiet is above zero while replaying statements of a DO block whose
	// failures the block itself expects (a guarded branch, a block with
	// an exception handler): their notes are dropped.
	quiet int
	// inBody counts the DO blocks the statement being applied runs in.
	inBody int

	// droppedNotNull remembers "schema.table.column" for NOT NULL columns
	// that were dropped, so a column re-added under that name without NOT
	// NULL counts as having lost it.
	droppedNotNull map[string]bool

	// layout is the layout of the file being replayed; runner are its
	// tool's bookkeeping tables, created when first named (replay_runner.go);
	// inRunner is set while one is being created.
	layout   layout.Layout
	runner   []string
	inRunner bool
}

// NewReplayer returns a Replayer that changes cat.
func NewReplayer(cat *catalog.Catalog) *Replayer {
	return &Replayer{cat: cat, hist: &catalog.History{}, droppedNotNull: map[string]bool{}}
}

// History is what the replayer has recorded so far: the changes it made to
// its catalog and the INSERT ... ON CONFLICT statements it saw. The audit
// takes it beside the catalog (audit.Options.History).
func (r *Replayer) History() *catalog.History { return r.hist }

// Apply parses one statement with PostgreSQL's parser and applies it to the
// catalog. A parse error is an Error diagnostic at the parser's position;
// references to missing objects are Notes; everything else is silent.
func (r *Replayer) Apply(st scan.Statement) []scan.Diagnostic {
	return r.ApplyParsed(parse.Parse(st))
}

// ApplyParsed is the apply phase of Apply: it replays a statement that
// Parse (or Load's parse phase, with its prefilter) has already handled, so
// that parsing can run ahead on other cores while replay stays in migration
// order.
func (r *Replayer) ApplyParsed(p *parse.Parsed) (diags []scan.Diagnostic) {
	if p.Err != nil {
		return []scan.Diagnostic{*p.Err}
	}
	st := p.Statement
	r.st, r.diags, r.quiet, r.inBody = &st, nil, 0, 0
	r.setLayout(p.Layout)
	defer func() {
		// Replay must survive any input; a bug here should cost one
		// statement, not the whole run.
		if p := recover(); p != nil {
			diags = append(r.diags, scan.Diagnostic{Level: scan.Error, Pos: st.Pos,
				Message: fmt.Sprintf("internal error replaying statement (please report it): %v", p)})
		}
	}()
	if p.Lookup != nil {
		r.pos = st.Pos
		schema, name := splitQualified(p.Lookup.Names)
		r.table(&pg.RangeVar{Schemaname: schema, Relname: name}, p.Lookup.MissingOk)
	}
	for _, raw := range p.Stmts {
		r.pos = st.PosAt(int(raw.StmtLocation))
		r.span = stmtSpan(&st, raw)
		r.apply(raw.Stmt)
	}
	return r.diags
}

// apply is the flat switch over statement kinds. Kinds idemcheck does not
// model (views, grants, sequences, triggers, DML ...) fall through.
func (r *Replayer) apply(n *pg.Node) {
	switch s := n.GetNode().(type) {
	case *pg.Node_CreateSchemaStmt:
		r.createSchema(s.CreateSchemaStmt)
	case *pg.Node_VariableSetStmt:
		r.setVariable(s.VariableSetStmt)
	case *pg.Node_SelectStmt:
		r.selectStmt(s.SelectStmt)
	case *pg.Node_CreateStmt:
		r.createTable(s.CreateStmt, "")
	case *pg.Node_CreateTableAsStmt:
		r.createTableAs(s.CreateTableAsStmt)
	case *pg.Node_AlterTableStmt:
		r.alterTable(s.AlterTableStmt)
	case *pg.Node_IndexStmt:
		r.createIndex(s.IndexStmt)
	case *pg.Node_RenameStmt:
		r.rename(s.RenameStmt)
	case *pg.Node_DropStmt:
		r.drop(s.DropStmt)
	case *pg.Node_AlterObjectSchemaStmt:
		r.setSchema(s.AlterObjectSchemaStmt)
	case *pg.Node_CreateDomainStmt:
		r.createDomain(s.CreateDomainStmt)
	case *pg.Node_CreateEnumStmt:
		r.createEnum(s.CreateEnumStmt)
	case *pg.Node_AlterEnumStmt:
		r.alterEnum(s.AlterEnumStmt)
	case *pg.Node_AlterDomainStmt:
		r.alterDomain(s.AlterDomainStmt)
	case *pg.Node_DoStmt:
		r.doBlock(s.DoStmt)
	case *pg.Node_CreateFunctionStmt:
		r.createFunction(s.CreateFunctionStmt)
	case *pg.Node_InsertStmt:
		r.insertStmt(s.InsertStmt)
	case *pg.Node_CreateSeqStmt:
		r.createSequence(s.CreateSeqStmt)
	}
}

// note records a Note diagnostic with PostgreSQL's SQLSTATE at the current
// statement.
func (r *Replayer) note(sqlstate, format string, args ...any) {
	if r.quiet > 0 {
		return
	}
	r.diags = append(r.diags, scan.Diagnostic{Level: scan.Note, Pos: r.pos, SQLState: sqlstate, Message: fmt.Sprintf(format, args...)})
}

// at converts a parser location inside the statement into a file position.
func (r *Replayer) at(loc int32) catalog.Pos {
	if loc < 0 {
		return r.pos
	}
	return r.st.PosAt(int(loc))
}

// record appends one change to the history. Changes to a
// materialized view stay out of it: the history is what rules about
// tables read.
func (r *Replayer) record(kind catalog.ChangeKind, t *catalog.Table, object, oldName string, ix *catalog.Index) {
	if t != nil && t.Kind == catalog.MaterializedView {
		return
	}
	c := catalog.Change{Kind: kind, Pos: r.pos, File: r.st.File, Object: object, OldName: oldName}
	if t != nil {
		c.Schema, c.Table = t.Schema, t.Name
	}
	if ix != nil {
		c.Index = copyIndex(ix)
	}
	r.hist.Changes = append(r.hist.Changes, c)
}

// copyIndex copies an index so that later changes to the live object do not
// rewrite history.
func copyIndex(ix *catalog.Index) *catalog.Index {
	cp := *ix
	cp.Parts = append([]catalog.IndexPart(nil), ix.Parts...)
	cp.Include = append([]string(nil), ix.Include...)
	return &cp
}

// --- name resolution ---

// displayName is a relation name as the user wrote it, for messages.
func displayName(schema, name string) string {
	if schema != "" {
		return schema + "." + name
	}
	return name
}

// relationSchema is the schema a new table goes to: a temporary one's is
// the session's own.
func (r *Replayer) relationSchema(rv *pg.RangeVar, schema string) *catalog.Schema {
	if rv.GetRelpersistence() == "t" {
		return r.cat.AddSchema(catalog.TempSchema)
	}
	return r.creationSchema(schema)
}

// creationSchema is the schema a new object goes to: the one named, or the
// first existing schema of the search path.
func (r *Replayer) creationSchema(schema string) *catalog.Schema {
	if schema != "" {
		if s := r.cat.Schema(schema); s != nil {
			return s
		}
		r.note("3F000", "schema %q does not exist", schema)
		return nil
	}
	for _, sn := range r.cat.SearchPath {
		if s := r.cat.Schema(sn); s != nil {
			return s
		}
	}
	r.note("3F000", "no schema has been selected to create in")
	return nil
}

// table resolves a RangeVar to a table. A missing table is a 42P01 note
// unless missingOk.
func (r *Replayer) table(rv *pg.RangeVar, missingOk bool) *catalog.Table {
	if rv == nil {
		return nil
	}
	if t := r.resolveTable(rv.Schemaname, rv.Relname); t != nil {
		return t
	}
	if !missingOk {
		r.note("42P01", "relation %q does not exist", displayName(rv.Schemaname, rv.Relname))
	}
	return nil
}

// findIndex resolves an index name (qualified or through the search path).
func (r *Replayer) findIndex(schema, name string) (*catalog.Table, *catalog.Index) {
	schemas := r.cat.SearchPath
	if schema != "" {
		schemas = []string{schema}
	}
	for _, sn := range schemas {
		s := r.cat.Schema(sn)
		if s == nil {
			continue
		}
		if t, ix := s.FindIndex(name); ix != nil {
			return t, ix
		}
	}
	return nil, nil
}

// schemaOf returns the schema a table lives in.
func (r *Replayer) schemaOf(t *catalog.Table) *catalog.Schema { return r.cat.Schema(t.Schema) }

// children returns the partitions and inheritance children of t, sorted
// by name. The scan avoids Catalog.Tables, which sorts every table, because
// ALTER TABLE without ONLY asks for children on every statement.
func (r *Replayer) children(t *catalog.Table) []*catalog.Table {
	var out []*catalog.Table
	qn := t.QualifiedName()
	for _, s := range r.cat.Schemas {
		for _, c := range s.Tables {
			if c.PartitionOf == qn || contains(c.Inherits, qn) {
				out = append(out, c)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].QualifiedName() < out[j].QualifiedName() })
	return out
}

// withChildren is t and, unless ONLY was written, every descendant: the
// tables an ALTER TABLE without ONLY reaches.
func (r *Replayer) withChildren(t *catalog.Table, inh bool) []*catalog.Table {
	out := []*catalog.Table{t}
	if !inh {
		return out
	}
	for i := 0; i < len(out); i++ {
		for _, c := range r.children(out[i]) {
			if !tableIn(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

func tableIn(list []*catalog.Table, t *catalog.Table) bool {
	for _, x := range list {
		if x == t {
			return true
		}
	}
	return false
}

// nameList turns a list of String nodes (a qualified name) into its parts.
func nameList(nodes []*pg.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, n.GetString_().GetSval())
	}
	return out
}

// splitQualified returns schema and name of a 1-, 2- or 3-part name.
func splitQualified(parts []string) (schema, name string) {
	switch len(parts) {
	case 0:
		return "", ""
	case 1:
		return "", parts[0]
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// --- search_path ---

func (r *Replayer) createSchema(cs *pg.CreateSchemaStmt) {
	name := cs.Schemaname
	if name == "" && cs.Authrole != nil {
		name = cs.Authrole.Rolename
	}
	if r.cat.Schema(name) != nil {
		if !cs.IfNotExists {
			r.note("42P06", "schema %q already exists", name)
		}
		return
	}
	r.cat.AddSchema(name)
	for _, elt := range cs.SchemaElts {
		if c := elt.GetCreateStmt(); c != nil {
			r.createTable(c, name)
			continue
		}
		r.apply(elt)
	}
}

func (r *Replayer) setVariable(vs *pg.VariableSetStmt) {
	if vs.Name != "search_path" {
		return
	}
	switch vs.Kind {
	case pg.VariableSetKind_VAR_SET_VALUE:
		var path []string
		for _, a := range vs.Args {
			if s := a.GetAConst().GetSval(); s != nil {
				path = append(path, s.GetSval())
			}
		}
		r.setSearchPath(path)
	case pg.VariableSetKind_VAR_SET_DEFAULT, pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_RESET_ALL:
		r.setSearchPath([]string{"$user", "public"})
	}
}

// selectStmt handles the two SELECTs that change the model: pg_dump's
// set_config('search_path', ...) and SELECT ... INTO.
func (r *Replayer) selectStmt(sel *pg.SelectStmt) {
	if sel.IntoClause != nil {
		r.createTableFromSelect(sel.IntoClause, sel, false, catalog.Ordinary)
		return
	}
	for _, t := range sel.TargetList {
		f := t.GetResTarget().GetVal().GetFuncCall()
		if f == nil || operatorName(f.Funcname) != "set_config" || len(f.Args) < 2 {
			continue
		}
		name := f.Args[0].GetAConst().GetSval()
		value := f.Args[1].GetAConst().GetSval()
		if name == nil || value == nil || name.GetSval() != "search_path" {
			continue
		}
		var path []string
		for _, p := range strings.Split(value.GetSval(), ",") {
			if p = identText(p); p != "" {
				path = append(path, p)
			}
		}
		r.setSearchPath(path)
	}
}

// setSearchPath keeps the names as given; schemas that do not exist (yet)
// are skipped at lookup time, as the server does. "$user" never matches a
// schema in a replayed catalog.
func (r *Replayer) setSearchPath(path []string) {
	out := []string{}
	for _, p := range path {
		if p != "$user" && p != "" {
			out = append(out, p)
		}
	}
	r.cat.SearchPath = out
}
