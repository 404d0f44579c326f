package parse

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// CREATE TABLE is most of what a schema dump gives the parser: on lago's
// 534 KB structure.sql its 138 tables took 31 of the 37 ms the parser
// spent on the statements the prefilter and quickParse's other shapes
// leave, for the protobuf round trip of every column's type and default as
// much as for the parse. pg_dump writes a table one way:
//
//	CREATE TABLE public.name (
//	    id uuid DEFAULT gen_random_uuid() NOT NULL,
//	    state character varying DEFAULT 'new'::character varying,
//	    amount numeric(30,5) DEFAULT 0.0 NOT NULL,
//	    ...
//	);
//
// createTable builds that tree in Go: columns of a type pg_dump names
// (the built-in spellings of format_type, or a plain name of one or two
// parts with integer modifiers, and [] for an array), each with DEFAULT
// and NOT NULL in any order, the default a constant, a string cast to a
// type, NULL cast to a type, or a call of a plainly named function on such
// arguments. Anything else (a CHECK, a table constraint, COLLATE, GENERATED,
// REFERENCES, options after the list, a negative number, an escape string)
// goes to the parser, as does every shape quickParse does not know.

// quickBuiltinTypes are the one-word built-in type names of the grammar
// (its column-name keywords) that createTable reads, with their catalog
// names; "double precision", "character varying", timestamp and time are
// read apart.
var quickBuiltinTypes = map[string]string{
	"bigint": "int8", "integer": "int4", "int": "int4", "smallint": "int2", "boolean": "bool",
	"real": "float4", "numeric": "numeric", "decimal": "numeric", "varchar": "varchar",
}

// tableLexer reads the column list of a CREATE TABLE. Unlike quickLexer's
// words, its tokens may touch punctuation ("uuid," "(255)").
type tableLexer struct {
	*quickLexer
}

// createTable reads CREATE TABLE after CREATE; nil when the statement is
// not of the shape above.
func (l *quickLexer) createTable() *pg.Node {
	if l.word() != "table" {
		return nil
	}
	st := &pg.CreateStmt{Oncommit: pg.OnCommitAction_ONCOMMIT_NOOP}
	if l.keyword("if") {
		if l.word() != "not" || l.word() != "exists" {
			return nil
		}
		st.IfNotExists = true
	}
	parts, loc, ok := l.name(3)
	if !ok {
		return nil
	}
	st.Relation = rangeVar(parts, loc, true)
	t := tableLexer{l}
	l.space()
	if !t.punct('(') {
		return nil
	}
	for {
		if t.peekWord() == "constraint" {
			c := t.check()
			if c == nil {
				return nil
			}
			st.TableElts = append(st.TableElts, &pg.Node{Node: &pg.Node_Constraint{Constraint: c}})
		} else {
			col := t.columnDef()
			if col == nil {
				return nil
			}
			st.TableElts = append(st.TableElts, &pg.Node{Node: &pg.Node_ColumnDef{ColumnDef: col}})
		}
		l.space()
		if t.punct(',') {
			continue
		}
		if t.punct(')') {
			break
		}
		return nil
	}
	return &pg.Node{Node: &pg.Node_CreateStmt{CreateStmt: st}}
}

// check reads CONSTRAINT name CHECK (expr), the expression read by the
// parser alone (exprAt).
func (t tableLexer) check() *pg.Constraint {
	_, at := t.bareWord()
	name, _ := t.ident()
	if name == "" {
		return nil
	}
	if w, _ := t.bareWord(); w != "check" {
		return nil
	}
	t.space()
	if t.at >= len(t.text) || t.text[t.at] != '(' {
		return nil
	}
	end := closingParen(t.text, t.at)
	if end < 0 {
		return nil
	}
	expr := exprAt(t.text, t.at+1, end)
	if expr == nil {
		return nil
	}
	t.at = end + 1
	// NOT VALID, NO INHERIT and the like are the parser's.
	if w := t.peekWord(); w != "" {
		return nil
	}
	return &pg.Constraint{Contype: pg.ConstrType_CONSTR_CHECK, Conname: name, Location: int32(at), RawExpr: expr, InitiallyValid: true}
}

// punct reads c when it comes next.
func (t tableLexer) punct(c byte) bool {
	if t.bad || t.at >= len(t.text) || t.text[t.at] != c {
		return false
	}
	t.at++
	return true
}

// ident reads a column or constraint name: a plain word (lower-cased) that
// is no keyword the grammar keeps from names, or a quoted name of
// printable ASCII without quotes inside; with where it starts, or "" when
// neither comes.
func (t tableLexer) ident() (string, int) {
	t.space()
	start := t.at
	if t.at < len(t.text) && t.text[t.at] == '"' {
		name, ok := t.quotedName()
		if !ok {
			return "", 0
		}
		return name, start
	}
	for t.at < len(t.text) && quickWordByte(t.text[t.at], t.at > start) {
		t.at++
	}
	w := lowerCopy(t.text[start:t.at])
	if w == "" || len(w) >= 64 || scan.IsReservedWord(w) {
		return "", 0
	}
	return w, start
}

// bareWord reads the next plain word, lower-cased, without keeping it, or
// "" when a word does not come next (nothing is read then).
func (t tableLexer) bareWord() (string, int) {
	t.space()
	start := t.at
	for t.at < len(t.text) && quickWordByte(t.text[t.at], t.at > start) {
		t.at++
	}
	return scan.LowerWord(t.text[start:t.at]), start
}

// peekWord is the next plain word, lower-cased, without reading it.
func (t tableLexer) peekWord() string {
	save := t.at
	w, _ := t.bareWord()
	t.at = save
	return w
}

// columnDef reads one column: a name, a type, then DEFAULT and NOT NULL.
func (t tableLexer) columnDef() *pg.ColumnDef {
	name, loc := t.ident()
	if name == "" {
		return nil
	}
	typ := t.typeName()
	if typ == nil {
		return nil
	}
	col := &pg.ColumnDef{Colname: name, TypeName: typ, IsLocal: true, Location: int32(loc)}
	for {
		switch t.peekWord() {
		case "default":
			_, at := t.bareWord()
			expr := t.expr()
			if expr == nil {
				return nil
			}
			col.Constraints = append(col.Constraints, &pg.Node{Node: &pg.Node_Constraint{Constraint: &pg.Constraint{
				Contype: pg.ConstrType_CONSTR_DEFAULT, Location: int32(at), RawExpr: expr}}})
		case "not":
			_, at := t.bareWord()
			if w, _ := t.bareWord(); w != "null" {
				return nil
			}
			col.Constraints = append(col.Constraints, &pg.Node{Node: &pg.Node_Constraint{Constraint: &pg.Constraint{
				Contype: pg.ConstrType_CONSTR_NOTNULL, Location: int32(at)}}})
		default:
			return col
		}
	}
}

// typeName reads a type as pg_dump writes it.
func (t tableLexer) typeName() *pg.TypeName {
	w, loc := t.bareWord()
	if w == "" {
		return nil
	}
	tn := &pg.TypeName{Typemod: -1, Location: int32(loc)}
	catalogType := func(name string) { tn.Names = []*pg.Node{pg.MakeStrNode("pg_catalog"), pg.MakeStrNode(name)} }
	switch w {
	case "double":
		if p, _ := t.bareWord(); p != "precision" {
			return nil
		}
		catalogType("float8")
	case "character":
		if v, _ := t.bareWord(); v != "varying" {
			return nil
		}
		catalogType("varchar")
		if !t.typmods(tn) {
			return nil
		}
	case "timestamp", "time":
		if !t.typmods(tn) {
			return nil
		}
		name := w
		switch t.peekWord() {
		case "with", "without":
			with, _ := t.bareWord()
			if a, _ := t.bareWord(); a != "time" {
				return nil
			}
			if b, _ := t.bareWord(); b != "zone" {
				return nil
			}
			if with == "with" {
				name += "tz"
			}
		}
		catalogType(name)
	default:
		if builtin, ok := quickBuiltinTypes[w]; ok {
			catalogType(builtin)
			if (builtin == "numeric" || builtin == "varchar") && !t.typmods(tn) {
				return nil
			}
			break
		}
		if scan.IsReservedWord(w) || len(w) >= 64 {
			return nil
		}
		tn.Names = []*pg.Node{pg.MakeStrNode(strings.Clone(w))}
		if t.punct('.') {
			part, _ := t.bareWord()
			if part == "" || scan.IsReservedWord(part) || len(part) >= 64 {
				return nil
			}
			tn.Names = append(tn.Names, pg.MakeStrNode(strings.Clone(part)))
		}
		if !t.typmods(tn) {
			return nil
		}
	}
	for {
		save := t.at
		t.space()
		if !t.punct('[') {
			t.at = save
			break
		}
		if !t.punct(']') {
			return nil
		}
		tn.ArrayBounds = append(tn.ArrayBounds, &pg.Node{Node: &pg.Node_Integer{Integer: &pg.Integer{Ival: -1}}})
	}
	return tn
}

// typmods reads an optional (n, ...) of integers after a type name.
func (t tableLexer) typmods(tn *pg.TypeName) bool {
	save := t.at
	t.space()
	if !t.punct('(') {
		t.at = save
		return true
	}
	for {
		t.space()
		c := t.number()
		if c == nil || c.GetIval() == nil {
			return false
		}
		tn.Typmods = append(tn.Typmods, &pg.Node{Node: &pg.Node_AConst{AConst: c}})
		t.space()
		if t.punct(',') {
			continue
		}
		return t.punct(')')
	}
}

// number reads an unsigned integer or decimal (digits.digits) constant as
// the parser makes it: an integer that fits in 32 bits is an ival, any
// other number keeps its text as an fval.
func (t tableLexer) number() *pg.A_Const {
	start := t.at
	digits := func() bool {
		from := t.at
		for t.at < len(t.text) && t.text[t.at] >= '0' && t.text[t.at] <= '9' {
			t.at++
		}
		return t.at > from
	}
	if !digits() {
		return nil
	}
	decimal := false
	if t.at < len(t.text) && t.text[t.at] == '.' {
		t.at++
		if !digits() {
			return nil
		}
		decimal = true
	}
	// A letter, a dot or a quote right after the digits is an exponent, a
	// second dot or a typed literal: the parser's.
	if t.at < len(t.text) && (quickWordByte(t.text[t.at], true) || t.text[t.at] == '.' || t.text[t.at] == '\'') {
		return nil
	}
	text := t.text[start:t.at]
	c := &pg.A_Const{Location: int32(start)}
	if !decimal {
		if n, err := strconv.ParseInt(text, 10, 32); err == nil {
			c.Val = &pg.A_Const_Ival{Ival: &pg.Integer{Ival: int32(n)}}
			return c
		}
	}
	c.Val = &pg.A_Const_Fval{Fval: &pg.Float{Fval: strings.Clone(text)}}
	return c
}

// expr reads a default: a primary, then any number of ::type casts.
func (t tableLexer) expr() *pg.Node {
	n := t.primary()
	for n != nil {
		save := t.at
		t.space()
		if !strings.HasPrefix(t.text[t.at:], "::") {
			t.at = save
			return n
		}
		at := t.at
		t.at += 2
		typ := t.typeName()
		if typ == nil {
			return nil
		}
		n = &pg.Node{Node: &pg.Node_TypeCast{TypeCast: &pg.TypeCast{Arg: n, TypeName: typ, Location: int32(at)}}}
	}
	return n
}

// primary reads a number, a string, TRUE, FALSE, NULL or a call.
func (t tableLexer) primary() *pg.Node {
	t.space()
	if t.at >= len(t.text) {
		return nil
	}
	start := t.at
	switch c := t.text[t.at]; {
	case c >= '0' && c <= '9':
		if k := t.number(); k != nil {
			return &pg.Node{Node: &pg.Node_AConst{AConst: k}}
		}
		return nil
	case c == '\'':
		s, ok := t.str()
		if !ok {
			return nil
		}
		return &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Sval{Sval: &pg.String{Sval: s}}, Location: int32(start)}}}
	}
	w, _ := t.bareWord()
	switch w {
	case "":
		return nil
	case "true", "false":
		return &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Boolval{Boolval: &pg.Boolean{Boolval: w == "true"}}, Location: int32(start)}}}
	case "null":
		return &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Isnull: true, Location: int32(start)}}}
	}
	if scan.IsReservedWord(w) || len(w) >= 64 {
		return nil
	}
	names := []*pg.Node{pg.MakeStrNode(strings.Clone(w))}
	if t.punct('.') {
		part, _ := t.bareWord()
		if part == "" || scan.IsReservedWord(part) || len(part) >= 64 {
			return nil
		}
		names = append(names, pg.MakeStrNode(strings.Clone(part)))
	}
	t.space()
	if !t.punct('(') {
		return nil // a column reference or a keyword expression: the parser's
	}
	call := &pg.FuncCall{Funcname: names, Funcformat: pg.CoercionForm_COERCE_EXPLICIT_CALL, Location: int32(start)}
	t.space()
	if t.punct(')') {
		return &pg.Node{Node: &pg.Node_FuncCall{FuncCall: call}}
	}
	for {
		arg := t.expr()
		if arg == nil {
			return nil
		}
		call.Args = append(call.Args, arg)
		t.space()
		if t.punct(',') {
			continue
		}
		if t.punct(')') {
			return &pg.Node{Node: &pg.Node_FuncCall{FuncCall: call}}
		}
		return nil
	}
}

// str reads a standard string constant, a doubled quote standing for one; one with
// a backslash (whose meaning depends on a setting) or that continues on
// another line after a quote is left to the parser.
func (t tableLexer) str() (string, bool) {
	t.at++ // the opening quote
	var b strings.Builder
	for {
		end := strings.IndexByte(t.text[t.at:], '\'')
		if end < 0 {
			return "", false
		}
		piece := t.text[t.at : t.at+end]
		if strings.IndexByte(piece, '\\') >= 0 {
			return "", false
		}
		b.WriteString(piece)
		t.at += end + 1
		if t.at < len(t.text) && t.text[t.at] == '\'' {
			b.WriteByte('\'')
			t.at++
			continue
		}
		// 'a' 'b' on two lines is one constant to the parser.
		rest := t.text[t.at:]
		if trimmed := strings.TrimLeft(rest, " \t\r\f\v"); strings.HasPrefix(trimmed, "\n") {
			if strings.HasPrefix(strings.TrimLeft(trimmed, " \t\n\r\f\v"), "'") {
				return "", false
			}
		}
		return b.String(), true
	}
}
