package replay

import (
	"encoding/json"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/parse"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// A DO block is read with PostgreSQL's own PL/pgSQL parser (pg_query parses
// a DO statement's body as an inline function) and replayed where it stands
// in the migration, as far as its effect is certain:
//
//   - static SQL statements run in order, each at its own line;
//   - EXECUTE of a string literal, or of literals joined with ||, runs as
//     if written out;
//   - the THEN branch of an IF whose condition only asks whether objects
//     exist (IF NOT EXISTS (SELECT ... FROM information_schema.columns
//     WHERE column_name = 'x'), to_regclass('x') IS NULL) runs with its
//     failures kept quiet: such a guard skips a statement about the object
//     it asks about exactly when the statement would fail (the column is
//     already renamed, the constraint already exists), so replaying it and
//     letting a failure change nothing reaches the state the server
//     reaches. So only statements that name an object the condition names
//     run, and only while the other branches change nothing replay models;
//     a condition that counts, compares or reads a setting runs no branch;
//   - a block with an EXCEPTION clause runs with its failures kept quiet,
//     since the handler catches them; the handlers do not run;
//   - after a guard's THEN branch that returns, the rest of the block runs
//     quietly too (the early-return form of the same guard).
//
// What replay cannot be sure of gets a note at its own line, and goes into
// the history as unmodelled so that findings on a table it names say so:
// EXECUTE of SQL built at run time (format(), variables), and statements in
// loops, CASE branches, exception handlers and IF branches that do not run.

// maxBodyDepth bounds DO blocks run from DO blocks (EXECUTE 'DO ...').
const maxBodyDepth = 4

// plStmt is one PL/pgSQL statement as pg_query prints it: its kind
// ("PLpgSQL_stmt_if") and its fields.
type plStmt map[string]*plFields

// plFields are the fields of every statement kind replay looks into.
type plFields struct {
	Lineno     int      `json:"lineno"`
	Body       []plStmt `json:"body"`
	Exceptions *struct {
		Block struct {
			List []struct {
				Exception struct {
					Action []plStmt `json:"action"`
				} `json:"PLpgSQL_exception"`
			} `json:"exc_list"`
		} `json:"PLpgSQL_exception_block"`
	} `json:"exceptions"`
	SQL       *plExpr  `json:"sqlstmt"`
	Query     *plExpr  `json:"query"`
	Cond      *plExpr  `json:"cond"`
	ThenBody  []plStmt `json:"then_body"`
	ElsifList []struct {
		Elsif struct {
			Stmts []plStmt `json:"stmts"`
		} `json:"PLpgSQL_if_elsif"`
	} `json:"elsif_list"`
	ElseBody     []plStmt `json:"else_body"`
	CaseWhenList []struct {
		When struct {
			Stmts []plStmt `json:"stmts"`
		} `json:"PLpgSQL_case_when"`
	} `json:"case_when_list"`
	ElseStmts []plStmt `json:"else_stmts"`
}

// plExpr is an expression or SQL statement: its text as written in the
// body.
type plExpr struct {
	Expr struct {
		Query string `json:"query"`
	} `json:"PLpgSQL_expr"`
}

func (e *plExpr) text() string {
	if e == nil {
		return ""
	}
	return e.Expr.Query
}

type plFunction struct {
	Function struct {
		Action plStmt `json:"action"`
	} `json:"PLpgSQL_function"`
}

// loopKinds are the statements whose body runs any number of times.
var loopKinds = map[string]bool{
	"PLpgSQL_stmt_loop": true, "PLpgSQL_stmt_while": true, "PLpgSQL_stmt_fori": true,
	"PLpgSQL_stmt_fors": true, "PLpgSQL_stmt_forc": true, "PLpgSQL_stmt_foreach_a": true,
	"PLpgSQL_stmt_dynfors": true,
}

func (r *Replayer) doBlock(do *pg.DoStmt) {
	lang := "plpgsql"
	var as *pg.DefElem
	for _, a := range do.Args {
		switch de := a.GetDefElem(); de.GetDefname() {
		case "as":
			as = de
		case "language":
			lang = de.Arg.GetString_().GetSval()
		}
	}
	if as == nil {
		return
	}
	body := as.Arg.GetString_().GetSval()
	if !strings.EqualFold(lang, "plpgsql") || r.inBody >= maxBodyDepth {
		r.unmodelled(r.pos, body)
		return
	}
	js, err := pg.ParsePlPgSqlToJSON(r.st.Text[r.span[0]:r.span[1]])
	var fns []plFunction
	if err == nil {
		err = json.Unmarshal([]byte(js), &fns)
	}
	if err != nil || len(fns) != 1 {
		if err == nil {
			err = errNotOneBlock
		}
		// pg_query's PL/pgSQL parser has no catalog, so it refuses some
		// bodies the server runs (a cursor declaration): not a server
		// error, so no SQLSTATE.
		r.diags = append(r.diags, scan.Diagnostic{Level: scan.Note, Pos: r.pos,
			Message: fmt.Sprintf("replay cannot read the DO block (%v); what it changes is not checked", err)})
		r.unmodelled(r.pos, body)
		return
	}
	w := &doWalk{r: r, body: body, src: r.bodySource(int(as.Location))}
	w.list([]plStmt{fns[0].Function.Action}, "")
}

type doError string

func (e doError) Error() string { return string(e) }

const errNotOneBlock = doError("the PL/pgSQL parser did not return one block")

// doWalk replays the statements of one DO block.
type doWalk struct {
	r *Replayer
	// body is the block's source as PL/pgSQL reads it (quotes undoubled).
	body string
	src  bodySource
	// cursor is where the last statement was found in body, so that two
	// equal statements on one line get their own positions.
	cursor int
	// guard holds the names a catalog guard asks about while its THEN
	// branch runs.
	guard []string
}

// list replays stmts. skip is empty to run them, or says why they do not
// run ("in a loop"), and then each one that would change the model only
// gets its note.
func (w *doWalk) list(stmts []plStmt, skip string) {
	r := w.r
	quietRest := false
	defer func() {
		if quietRest {
			r.quiet--
		}
	}()
	for _, s := range stmts {
		for kind, f := range s {
			if f == nil {
				continue
			}
			switch {
			case kind == "PLpgSQL_stmt_block":
				w.block(f, skip)
			case kind == "PLpgSQL_stmt_execsql":
				w.exec(f.Lineno, f.SQL.text(), skip)
			case kind == "PLpgSQL_stmt_dynexecute":
				w.execute(f.Lineno, f.Query.text(), skip)
			case kind == "PLpgSQL_stmt_if":
				guarded, returns := w.ifStmt(f, skip)
				switch {
				case returns && guarded && skip == "" && !quietRest:
					r.quiet++
					quietRest = true
				case returns && !guarded && skip == "":
					skip = "only when an earlier IF does not return, which replay cannot evaluate"
				}
			case kind == "PLpgSQL_stmt_case":
				why := orSkip(skip, "only in its CASE branch, which replay cannot choose")
				for _, when := range f.CaseWhenList {
					w.list(when.When.Stmts, why)
				}
				w.list(f.ElseStmts, why)
			case loopKinds[kind]:
				w.list(f.Body, orSkip(skip, "in a loop, which replay cannot count"))
			}
		}
	}
}

// orSkip keeps an outer reason for not running.
func orSkip(outer, inner string) string {
	if outer != "" {
		return outer
	}
	return inner
}

// block runs a BEGIN ... END block; with an EXCEPTION clause its failures
// are caught, and its handlers run only when it fails.
func (w *doWalk) block(f *plFields, skip string) {
	if f.Exceptions == nil {
		w.list(f.Body, skip)
		return
	}
	w.r.quiet++
	w.list(f.Body, skip)
	w.r.quiet--
	for _, h := range f.Exceptions.Block.List {
		w.list(h.Exception.Action, orSkip(skip, "only when the block above it fails (an exception handler)"))
	}
}

// ifStmt runs the THEN branch of a catalog guard and skips every other
// branch. Within a guarded branch a statement runs only when it names an
// object the condition asks about. It reports whether the IF is such a
// guard and whether a branch returns from the block.
func (w *doWalk) ifStmt(f *plFields, skip string) (guarded, returns bool) {
	others := [][]plStmt{f.ElseBody}
	for _, e := range f.ElsifList {
		others = append(others, e.Elsif.Stmts)
	}
	names, guarded := w.r.catalogGuard(f.Cond.text())
	guarded = guarded && !w.holdsChanges(others...)
	why := orSkip(skip, "only when its IF condition holds, which replay cannot evaluate")
	if guarded && skip == "" {
		saved := w.guard
		w.guard = names
		w.r.quiet++
		w.list(f.ThenBody, "")
		w.r.quiet--
		w.guard = saved
	} else {
		w.list(f.ThenBody, why)
	}
	for _, o := range others {
		w.list(o, why)
	}
	return guarded, returnsFrom(append(others, f.ThenBody)...)
}

// returnsFrom reports whether any of the lists has a RETURN at its top.
func returnsFrom(lists ...[]plStmt) bool {
	for _, l := range lists {
		for _, s := range l {
			if _, ok := s["PLpgSQL_stmt_return"]; ok {
				return true
			}
		}
	}
	return false
}

// holdsChanges reports whether any statement in the lists, at any depth,
// may change what replay models.
func (w *doWalk) holdsChanges(lists ...[]plStmt) bool {
	for _, l := range lists {
		for _, s := range l {
			for kind, f := range s {
				if f == nil {
					continue
				}
				switch kind {
				case "PLpgSQL_stmt_execsql":
					if changesModel(f.SQL.text()) {
						return true
					}
				case "PLpgSQL_stmt_dynexecute":
					if sql, _, ok := literalSQL(f.Query.text()); !ok || changesModel(sql) {
						return true
					}
				}
				nested := [][]plStmt{f.Body, f.ThenBody, f.ElseBody, f.ElseStmts}
				for _, e := range f.ElsifList {
					nested = append(nested, e.Elsif.Stmts)
				}
				for _, c := range f.CaseWhenList {
					nested = append(nested, c.When.Stmts)
				}
				if f.Exceptions != nil {
					for _, h := range f.Exceptions.Block.List {
						nested = append(nested, h.Exception.Action)
					}
				}
				if w.holdsChanges(nested...) {
					return true
				}
			}
		}
	}
	return false
}

// exec is a static SQL statement of the block.
func (w *doWalk) exec(line int, sql string, skip string) {
	if sql == "" {
		return
	}
	st := w.statement(w.locate(line, sql), sql, true)
	w.run(st, skip)
}

// run replays st, or notes it when it does not run: skip says why, or a
// guard it runs under asks about other objects.
func (w *doWalk) run(st scan.Statement, skip string) {
	if skip == "" && w.guard != nil && !mentionsAny(st.Text, w.guard) {
		skip = "only when its IF condition holds, which asks about other objects"
	}
	if skip != "" {
		if changesModel(st.Text) {
			w.skipped(st, skip)
		}
		return
	}
	w.r.applyInner(st)
}

// execute is EXECUTE expr: literal SQL runs, SQL built at run time gets a
// note.
func (w *doWalk) execute(line int, expr string, skip string) {
	at := w.locate(line, expr)
	sql, off, ok := literalSQL(expr)
	if !ok {
		st := w.statement(at, expr, true)
		w.r.diags = append(w.r.diags, scan.Diagnostic{Level: scan.Note, Pos: st.Pos,
			Message: "replay cannot follow EXECUTE " + scan.Excerpt(expr, 60) + ": the SQL is built when the block runs; what it changes is not checked"})
		w.r.unmodelled(st.Pos, expr)
		return
	}
	var st scan.Statement
	if off >= 0 {
		st = w.statement(at+off, sql, true)
	} else {
		st = w.statement(at, sql, false)
	}
	w.run(st, skip)
}

// skipped notes a statement that would change the model but does not run.
func (w *doWalk) skipped(st scan.Statement, why string) {
	w.r.diags = append(w.r.diags, scan.Diagnostic{Level: scan.Note, Pos: st.Pos,
		Message: "replay does not follow " + scan.Excerpt(st.Text, 60) + ": it runs " + why + "; what it changes is not checked"})
	w.r.unmodelledStatement(st)
}

// unmodelledStatement records a statement of a DO block that does not run,
// naming the table of the first relation it mentions (ALTER INDEX ...
// RENAME escapes the DDL pattern that unmodelled looks for).
func (r *Replayer) unmodelledStatement(st scan.Statement) {
	if parse.DDLInBody.MatchString(st.Text) {
		r.unmodelled(st.Pos, st.Text)
		return
	}
	c := catalog.Change{Kind: catalog.ChangeUnmodelled, Pos: st.Pos, File: r.st.File, Object: scan.Excerpt(st.Text, 60)}
	if tree, err := pg.Parse(st.Text); err == nil {
		walkMessages(tree.ProtoReflect(), func(m protoreflect.Message) {
			rv, ok := m.Interface().(*pg.RangeVar)
			if !ok || c.Table != "" {
				return
			}
			c.Schema, c.Table = rv.Schemaname, rv.Relname
			t := r.cat.ResolveTable(rv.Schemaname, rv.Relname)
			if t == nil {
				// An index is named for its table.
				t, _ = r.findIndex(rv.Schemaname, rv.Relname)
			}
			if t != nil {
				c.Schema, c.Table = t.Schema, t.Name
			}
		})
	}
	r.hist.Changes = append(r.hist.Changes, c)
}

// locate finds where text starts in the body: on PL/pgSQL's line number
// (1 is the line the body starts on), at or after the last statement found.
// When the text is not there verbatim, it is the line's first character.
func (w *doWalk) locate(line int, text string) int {
	from := 0
	for n := 1; n < line; n++ {
		i := strings.IndexByte(w.body[from:], '\n')
		if i < 0 {
			break
		}
		from += i + 1
	}
	start := max(from, w.cursor)
	if k := strings.Index(w.body[start:], text); k >= 0 && text != "" {
		w.cursor = start + k + len(text)
		return start + k
	}
	if k := strings.Index(w.body[from:], text); k >= 0 && text != "" {
		return from + k
	}
	for from < len(w.body) && (w.body[from] == ' ' || w.body[from] == '\t') {
		from++
	}
	return from
}

// statement builds the Statement for text found at body offset at. exact
// says text is the source there character for character, so that the
// parser's locations inside it map to the file; otherwise every position in
// it is its start.
func (w *doWalk) statement(at int, text string, exact bool) scan.Statement {
	r := w.r
	off, ok := w.src.offset(at)
	if !ok {
		return scan.Statement{Text: text, File: r.st.File, Pos: r.pos}
	}
	return r.st.Inner(text, off, exact && len(w.src.quotes) == 0)
}

// bodySource maps offsets in a DO block's body to offsets in the statement
// text.
type bodySource struct {
	// start is the offset of the body's first character, -1 when the
	// literal is one whose escapes replay does not map (E'...').
	start int
	// quotes are the body offsets of quotes written doubled ('') in a
	// single-quoted body.
	quotes []int
}

func (b bodySource) offset(i int) (int, bool) {
	if b.start < 0 {
		return 0, false
	}
	n := 0
	for _, q := range b.quotes {
		if q < i {
			n++
		}
	}
	return b.start + i + n, true
}

// bodySource reads the literal at loc in the statement text: $tag$...$tag$
// or '...'.
func (r *Replayer) bodySource(loc int) bodySource {
	text := r.st.Text
	if loc < 0 || loc >= len(text) {
		return bodySource{start: -1}
	}
	switch text[loc] {
	case '$':
		if end := strings.IndexByte(text[loc+1:], '$'); end >= 0 {
			return bodySource{start: loc + end + 2}
		}
	case '\'':
		b := bodySource{start: loc + 1}
		for i, n := loc+1, 0; i < len(text); i, n = i+1, n+1 {
			if text[i] != '\'' {
				continue
			}
			if i+1 < len(text) && text[i+1] == '\'' {
				b.quotes = append(b.quotes, n)
				i++
				continue
			}
			break
		}
		return b
	}
	return bodySource{start: -1}
}

// applyInner replays a statement of a DO block in place of the block.
func (r *Replayer) applyInner(st scan.Statement) {
	parsed := parse.Parse(st)
	if parsed.Err != nil {
		r.diags = append(r.diags, *parsed.Err)
		return
	}
	saved, savedPos, savedSpan := r.st, r.pos, r.span
	r.inBody++
	defer func() { r.st, r.pos, r.span = saved, savedPos, savedSpan; r.inBody-- }()
	r.st = &st
	for _, raw := range parsed.Stmts {
		r.pos = st.PosAt(int(raw.StmtLocation))
		r.span = stmtSpan(&st, raw)
		r.apply(raw.Stmt)
	}
}

// literalSQL evaluates the expression of EXECUTE when it is a string
// literal or literals joined with ||. off is where the SQL starts in expr
// when it is one literal replay can map character by character, -1
// otherwise.
func literalSQL(expr string) (sql string, off int, ok bool) {
	tree, err := pg.Parse("SELECT " + expr)
	if err != nil || len(tree.Stmts) != 1 {
		return "", 0, false
	}
	sel := tree.Stmts[0].GetStmt().GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || len(sel.FromClause) != 0 {
		return "", 0, false
	}
	val := sel.TargetList[0].GetResTarget().GetVal()
	sql, ok = constText(val)
	if !ok {
		return "", 0, false
	}
	off = -1
	if c := val.GetAConst(); c != nil {
		loc := int(c.Location) - len("SELECT ")
		switch {
		case loc >= 0 && loc < len(expr) && expr[loc] == '\'':
			off = loc + 1
		case loc >= 0 && loc < len(expr) && expr[loc] == '$':
			if end := strings.IndexByte(expr[loc+1:], '$'); end >= 0 {
				off = loc + end + 2
			}
		}
	}
	return sql, off, true
}

// constText evaluates a string constant, a cast of one, or || between them.
func constText(n *pg.Node) (string, bool) {
	switch {
	case n.GetAConst() != nil:
		if s := n.GetAConst().GetSval(); s != nil {
			return s.GetSval(), true
		}
	case n.GetTypeCast() != nil:
		return constText(n.GetTypeCast().Arg)
	case n.GetAExpr() != nil:
		a := n.GetAExpr()
		if a.Kind != pg.A_Expr_Kind_AEXPR_OP || operatorName(a.Name) != "||" || a.Lexpr == nil {
			return "", false
		}
		l, okl := constText(a.Lexpr)
		rt, okr := constText(a.Rexpr)
		return l + rt, okl && okr
	}
	return "", false
}

// toRegFuncs look an object up by name and return NULL when it is missing.
var toRegFuncs = map[string]bool{
	"to_regclass": true, "to_regtype": true, "to_regnamespace": true, "to_regproc": true,
	"to_regprocedure": true, "to_regrole": true, "to_regoper": true, "to_regoperator": true,
	"to_regcollation": true,
}

// catalogGuard reads an IF condition that only asks whether objects exist:
// [NOT] EXISTS over system catalogs and information_schema views, or
// to_regclass(...) IS [NOT] NULL, joined with AND, OR and NOT. It returns
// the names the condition asks about (its string constants, less schema
// names), and false for any other condition: a count, a setting, a
// variable.
func (r *Replayer) catalogGuard(cond string) (names []string, ok bool) {
	tree, err := pg.Parse("SELECT " + cond)
	if err != nil || len(tree.Stmts) != 1 {
		return nil, false
	}
	sel := tree.Stmts[0].GetStmt().GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || len(sel.FromClause) != 0 {
		return nil, false
	}
	if !existenceTest(sel.TargetList[0].GetResTarget().GetVal()) {
		return nil, false
	}
	walkMessages(sel.ProtoReflect(), func(m protoreflect.Message) {
		if c, ok := m.Interface().(*pg.A_Const); ok && c.GetSval() != nil {
			name := strings.ToLower(c.GetSval().GetSval())
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				name = name[i+1:]
			}
			if name != "" && r.cat.Schema(name) == nil {
				names = append(names, name)
			}
		}
	})
	return names, len(names) > 0
}

// existenceTest reports whether n is made only of existence tests over the
// catalogs.
func existenceTest(n *pg.Node) bool {
	switch {
	case n.GetBoolExpr() != nil:
		for _, a := range n.GetBoolExpr().Args {
			if !existenceTest(a) {
				return false
			}
		}
		return true
	case n.GetSubLink() != nil:
		sl := n.GetSubLink()
		return sl.SubLinkType == pg.SubLinkType_EXISTS_SUBLINK && readsCatalogsOnly(sl.Subselect)
	case n.GetNullTest() != nil:
		f := n.GetNullTest().Arg.GetFuncCall()
		return f != nil && toRegFuncs[strings.ToLower(operatorName(f.Funcname))]
	}
	return false
}

// readsCatalogsOnly reports whether a query reads relations, all of them
// system catalogs or information_schema views.
func readsCatalogsOnly(n *pg.Node) bool {
	reads, catalogOnly := false, true
	walkMessages(n.ProtoReflect(), func(m protoreflect.Message) {
		if rv, ok := m.Interface().(*pg.RangeVar); ok {
			reads = true
			if rv.Schemaname != "pg_catalog" && rv.Schemaname != "information_schema" &&
				!(rv.Schemaname == "" && strings.HasPrefix(rv.Relname, "pg_")) {
				catalogOnly = false
			}
		}
	})
	return reads && catalogOnly
}

// mentionsAny reports whether sql names one of names as a word.
func mentionsAny(sql string, names []string) bool {
	lower := strings.ToLower(sql)
	for _, name := range names {
		for from := 0; ; {
			i := strings.Index(lower[from:], name)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(name)
			if (start == 0 || !identByte(lower[start-1])) && (end == len(lower) || !identByte(lower[end])) {
				return true
			}
			from = end
		}
	}
	return false
}

func identByte(b byte) bool {
	return b == '_' || b == '$' || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b >= 0x80
}

// walkMessages calls fn for m and every message below it.
func walkMessages(m protoreflect.Message, fn func(protoreflect.Message)) {
	fn(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkMessages(l.Get(i).Message(), fn)
			}
		case fd.Message() != nil && !fd.IsMap():
			walkMessages(v.Message(), fn)
		}
		return true
	})
}

// changesModel reports whether replaying sql could change the catalog.
func changesModel(sql string) bool {
	tree, err := pg.Parse(sql)
	if err != nil {
		return parse.DDLInBody.MatchString(sql)
	}
	for _, raw := range tree.Stmts {
		if nodeChangesModel(raw.Stmt) {
			return true
		}
	}
	return false
}

func nodeChangesModel(n *pg.Node) bool {
	switch s := n.GetNode().(type) {
	case *pg.Node_CreateStmt, *pg.Node_IndexStmt, *pg.Node_RenameStmt, *pg.Node_AlterObjectSchemaStmt,
		*pg.Node_CreateDomainStmt, *pg.Node_AlterDomainStmt, *pg.Node_CreateSchemaStmt, *pg.Node_CreateSeqStmt,
		*pg.Node_DoStmt:
		return true
	case *pg.Node_CreateTableAsStmt:
		return s.CreateTableAsStmt.Objtype == pg.ObjectType_OBJECT_TABLE || s.CreateTableAsStmt.Objtype == pg.ObjectType_OBJECT_MATVIEW
	case *pg.Node_DropStmt:
		switch s.DropStmt.RemoveType {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_INDEX, pg.ObjectType_OBJECT_SCHEMA,
			pg.ObjectType_OBJECT_DOMAIN, pg.ObjectType_OBJECT_SEQUENCE, pg.ObjectType_OBJECT_MATVIEW:
			return true
		}
	case *pg.Node_AlterTableStmt:
		if s.AlterTableStmt.Objtype == pg.ObjectType_OBJECT_INDEX {
			return true
		}
		for _, c := range s.AlterTableStmt.Cmds {
			if modelledAlter(c.GetAlterTableCmd().GetSubtype()) {
				return true
			}
		}
	case *pg.Node_VariableSetStmt:
		return s.VariableSetStmt.Name == "search_path"
	case *pg.Node_SelectStmt:
		return s.SelectStmt.IntoClause != nil
	case *pg.Node_InsertStmt:
		return s.InsertStmt.OnConflictClause != nil
	}
	return false
}

// stmtSpan is the byte range of one raw statement within st.Text.
func stmtSpan(st *scan.Statement, raw *pg.RawStmt) [2]int {
	start := int(raw.StmtLocation)
	end := len(st.Text)
	if raw.StmtLen > 0 && start+int(raw.StmtLen) <= end {
		end = start + int(raw.StmtLen)
	}
	if start < 0 || start > end {
		start = 0
	}
	return [2]int{start, end}
}
