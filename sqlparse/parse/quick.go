package parse

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// A pg_dump made with --clean (a Rails structure.sql often is) starts with
// a DROP for every object it then creates: on lago's 534 KB dump, 1,270 of
// its 2,684 statements are DROP TABLE / INDEX / VIEW / SEQUENCE IF EXISTS
// and ALTER TABLE ... DROP CONSTRAINT IF EXISTS, a fifth of what the parser
// spends on the file, since a short statement costs the parser its fixed
// price (the call into C, the memory context, the protobuf round trip)
// several times over. quickParse builds the parse tree of those few shapes
// in Go, field for field as the parser builds it, and leaves everything
// else to the parser: a comment, a keyword where a name goes, a quoted or
// non-ASCII name, a second object, any word it does not expect. The test
// compares its trees with the parser's over every statement of the
// fixtures and a generated set.

// quickDropKinds are the objects DROP takes by any_name that quickParse
// reads.
var quickDropKinds = map[string]pg.ObjectType{
	"table":    pg.ObjectType_OBJECT_TABLE,
	"index":    pg.ObjectType_OBJECT_INDEX,
	"view":     pg.ObjectType_OBJECT_VIEW,
	"sequence": pg.ObjectType_OBJECT_SEQUENCE,
}

// quickParse returns the parse tree of text when it is one of
//
//	DROP {TABLE | INDEX | VIEW | SEQUENCE} [IF EXISTS] name [CASCADE | RESTRICT]
//	ALTER TABLE [IF EXISTS] [ONLY] name DROP CONSTRAINT [IF EXISTS] name [CASCADE | RESTRICT]
//	ALTER TABLE [IF EXISTS] [ONLY] name ALTER [COLUMN] name DROP DEFAULT
//	ALTER TABLE [IF EXISTS] [ONLY] name ADD CONSTRAINT name {PRIMARY KEY | UNIQUE} (column, ...)
//	ALTER TABLE [IF EXISTS] [ONLY] name ADD CONSTRAINT name FOREIGN KEY (column, ...)
//	    REFERENCES name [(column, ...)] [ON {DELETE | UPDATE} action ...] [NOT VALID]
//	CREATE [UNIQUE] INDEX name ON [ONLY] name [USING method] (column, ...) [WHERE predicate]
//	CREATE TABLE [IF NOT EXISTS] name (column type [DEFAULT expr] [NOT NULL], ..., [CONSTRAINT name CHECK (expr)], ...)
//	    (quick_table.go says which types and defaults)
//
// with plain lower-case-able ASCII names of one to three parts (the
// relation) or one (the constraint, the column, the index; a column may be
// a plain quoted name too), words apart by white space alone; ok is false
// for anything else.
func quickParse(text string) ([]*pg.RawStmt, bool) {
	l := quickLexer{text: text}
	var node *pg.Node
	switch l.word() {
	case "drop":
		node = l.drop()
	case "alter":
		node = l.alterTable()
	case "create":
		if l.peek() == "table" {
			node = l.createTable()
		} else {
			node = l.createIndex()
		}
	}
	if node == nil || !l.end() {
		return nil, false
	}
	return []*pg.RawStmt{{Stmt: node}}, true
}

// quickLexer reads the words of a statement from left to right.
type quickLexer struct {
	text string
	at   int
	bad  bool
}

// space skips white space and reports whether there was some.
func (l *quickLexer) space() bool {
	start := l.at
	for l.at < len(l.text) {
		switch l.text[l.at] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			l.at++
			continue
		}
		break
	}
	return l.at > start
}

// word reads the next word, lower-cased, or "" (and marks the statement
// bad) when what comes next is not a word of letters, digits, _ and $
// followed by white space or the end. The word may be a substring of the
// text (scan.LowerWord): name copies the words it keeps.
func (l *quickLexer) word() string {
	if l.bad {
		return ""
	}
	start := l.at
	for l.at < len(l.text) && quickWordByte(l.text[l.at], l.at > start) {
		l.at++
	}
	end := l.at
	if end == start || end < len(l.text) && l.text[end] != '.' && l.text[end] != '(' && !l.space() {
		l.bad = true
		return ""
	}
	return scan.LowerWord(l.text[start:end])
}

// lowerCopy lowers a word into a string of its own: a name kept in the
// catalog must not hold the whole file's text alive, as a substring would.
func lowerCopy(w string) string {
	return strings.Clone(strings.ToLower(w))
}

// peek is the next word without reading it.
func (l *quickLexer) peek() string {
	save := *l
	w := l.word()
	*l = save
	return w
}

// keyword reads w when it comes next.
func (l *quickLexer) keyword(w string) bool {
	if l.peek() != w {
		return false
	}
	l.word()
	return true
}

// end reports whether the whole text was read.
func (l *quickLexer) end() bool {
	l.space()
	return !l.bad && l.at == len(l.text)
}

func quickWordByte(c byte, inside bool) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' ||
		inside && (c >= '0' && c <= '9' || c == '$')
}

// name reads a name of one to max parts, each a plain word that is no
// keyword the grammar keeps from names, and returns its parts and the
// byte offset where it starts.
func (l *quickLexer) name(max int) ([]string, int, bool) {
	start := l.at
	var parts []string
	for {
		w := l.word()
		// A reserved word is refused here though a qualified name's later
		// parts may be one: the parser decides those.
		if w == "" || scan.IsReservedWord(w) || len(w) >= 64 {
			return nil, 0, false
		}
		parts = append(parts, strings.Clone(w))
		if l.at >= len(l.text) || l.text[l.at] != '.' {
			break
		}
		l.at++
		if len(parts) == max {
			return nil, 0, false
		}
	}
	return parts, start, true
}

// ifExists reads IF EXISTS when it comes next.
func (l *quickLexer) ifExists() bool {
	if l.peek() != "if" {
		return false
	}
	l.word()
	if l.word() != "exists" {
		l.bad = true
	}
	return true
}

// behavior reads CASCADE or RESTRICT, RESTRICT when neither comes.
func (l *quickLexer) behavior() pg.DropBehavior {
	switch l.peek() {
	case "cascade":
		l.word()
		return pg.DropBehavior_DROP_CASCADE
	case "restrict":
		l.word()
	}
	return pg.DropBehavior_DROP_RESTRICT
}

func (l *quickLexer) drop() *pg.Node {
	kind, ok := quickDropKinds[l.word()]
	if !ok {
		return nil
	}
	missingOk := l.ifExists()
	parts, _, ok := l.name(3)
	if !ok {
		return nil
	}
	items := make([]*pg.Node, len(parts))
	for i, p := range parts {
		items[i] = pg.MakeStrNode(p)
	}
	return &pg.Node{Node: &pg.Node_DropStmt{DropStmt: &pg.DropStmt{
		Objects:    []*pg.Node{pg.MakeListNode(items)},
		RemoveType: kind,
		Behavior:   l.behavior(),
		MissingOk:  missingOk,
	}}}
}

func (l *quickLexer) alterTable() *pg.Node {
	if l.word() != "table" {
		return nil
	}
	missingOk := l.ifExists()
	inh := !l.keyword("only")
	parts, loc, ok := l.name(3)
	if !ok {
		return nil
	}
	rel := rangeVar(parts, loc, inh)
	var cmd *pg.AlterTableCmd
	switch l.word() {
	case "drop":
		if l.word() != "constraint" {
			return nil
		}
		cmd = &pg.AlterTableCmd{Subtype: pg.AlterTableType_AT_DropConstraint, MissingOk: l.ifExists()}
		name, _, ok := l.name(1)
		if !ok {
			return nil
		}
		cmd.Name = name[0]
		cmd.Behavior = l.behavior()
	case "add":
		at := l.at
		if l.word() != "constraint" {
			return nil
		}
		name, _, ok := l.name(1)
		if !ok {
			return nil
		}
		c := &pg.Constraint{Conname: name[0], Location: int32(at)}
		switch l.word() {
		case "primary":
			if l.word() != "key" {
				return nil
			}
			c.Contype = pg.ConstrType_CONSTR_PRIMARY
		case "unique":
			c.Contype = pg.ConstrType_CONSTR_UNIQUE
		case "foreign":
			if l.word() != "key" || !l.foreignKey(c) {
				return nil
			}
		default:
			return nil
		}
		if c.Contype != pg.ConstrType_CONSTR_FOREIGN {
			cols, ok := l.columns()
			if !ok {
				return nil
			}
			c.Keys = strNodes(cols)
		}
		cmd = &pg.AlterTableCmd{Subtype: pg.AlterTableType_AT_AddConstraint, Behavior: pg.DropBehavior_DROP_RESTRICT,
			Def: &pg.Node{Node: &pg.Node_Constraint{Constraint: c}}}
	case "alter":
		l.keyword("column")
		name, _, ok := l.name(1)
		if !ok || l.word() != "drop" || l.word() != "default" {
			return nil
		}
		cmd = &pg.AlterTableCmd{Subtype: pg.AlterTableType_AT_ColumnDefault, Name: name[0], Behavior: pg.DropBehavior_DROP_RESTRICT}
	default:
		return nil
	}
	return &pg.Node{Node: &pg.Node_AlterTableStmt{AlterTableStmt: &pg.AlterTableStmt{
		Relation:  rel,
		Cmds:      []*pg.Node{{Node: &pg.Node_AlterTableCmd{AlterTableCmd: cmd}}},
		Objtype:   pg.ObjectType_OBJECT_TABLE,
		MissingOk: missingOk,
	}}}
}

// columns reads a parenthesised list of column names, each a plain word
// or a quoted name without quotes inside, and what white space follows.
func (l *quickLexer) columns() ([]string, bool) {
	if l.bad || l.at >= len(l.text) || l.text[l.at] != '(' {
		return nil, false
	}
	l.at++
	var cols []string
	for {
		l.space()
		var col string
		if l.at < len(l.text) && l.text[l.at] == '"' {
			var ok bool
			if col, ok = l.quotedName(); !ok {
				return nil, false
			}
		} else {
			start := l.at
			for l.at < len(l.text) && quickWordByte(l.text[l.at], l.at > start) {
				l.at++
			}
			col = lowerCopy(l.text[start:l.at])
			if col == "" || len(col) >= 64 || scan.IsReservedWord(col) {
				return nil, false
			}
		}
		cols = append(cols, col)
		l.space()
		if l.at >= len(l.text) {
			return nil, false
		}
		switch l.text[l.at] {
		case ',':
			l.at++
			continue
		case ')':
			l.at++
			l.space()
			return cols, true
		}
		return nil, false
	}
}

// quotedName reads the quoted name at l.at: printable ASCII, no quote
// inside (a doubled quote is the parser's), shorter than 64 bytes.
func (l *quickLexer) quotedName() (string, bool) {
	end := strings.IndexByte(l.text[l.at+1:], '"')
	if end <= 0 || end >= 64 {
		return "", false
	}
	name := l.text[l.at+1 : l.at+1+end]
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] >= 0x7f {
			return "", false
		}
	}
	if after := l.at + end + 2; after < len(l.text) && l.text[after] == '"' {
		return "", false // a doubled quote
	}
	l.at += end + 2
	return strings.Clone(name), true
}

// createIndex reads CREATE [UNIQUE] INDEX after CREATE.
func (l *quickLexer) createIndex() *pg.Node {
	st := &pg.IndexStmt{AccessMethod: "btree"}
	w := l.word()
	if w == "unique" {
		st.Unique = true
		w = l.word()
	}
	if w != "index" {
		return nil
	}
	name, _, ok := l.name(1)
	if !ok || name[0] == "on" {
		return nil
	}
	st.Idxname = name[0]
	if l.word() != "on" {
		return nil
	}
	inh := !l.keyword("only")
	parts, loc, ok := l.name(3)
	if !ok {
		return nil
	}
	st.Relation = rangeVar(parts, loc, inh)
	if l.keyword("using") {
		m, _, ok := l.name(1)
		if !ok {
			return nil
		}
		st.AccessMethod = m[0]
	}
	cols, ok := l.columns()
	if !ok {
		return nil
	}
	if l.keyword("where") {
		// The predicate runs to the end of the statement; the parser
		// reads it alone (exprAt).
		if st.WhereClause = nullTests(l.text, l.at, len(l.text)); st.WhereClause == nil {
			st.WhereClause = exprAt(l.text, l.at, len(l.text))
		}
		if st.WhereClause == nil {
			return nil
		}
		l.at = len(l.text)
	}
	for _, c := range cols {
		st.IndexParams = append(st.IndexParams, &pg.Node{Node: &pg.Node_IndexElem{IndexElem: &pg.IndexElem{
			Name: c, Ordering: pg.SortByDir_SORTBY_DEFAULT, NullsOrdering: pg.SortByNulls_SORTBY_NULLS_DEFAULT}}})
	}
	return &pg.Node{Node: &pg.Node_IndexStmt{IndexStmt: st}}
}

// rangeVar is the relation of a name of one to three parts.
func rangeVar(parts []string, loc int, inh bool) *pg.RangeVar {
	rel := &pg.RangeVar{Inh: inh, Relpersistence: "p", Location: int32(loc)}
	rel.Relname = parts[len(parts)-1]
	if len(parts) > 1 {
		rel.Schemaname = parts[len(parts)-2]
	}
	if len(parts) > 2 {
		rel.Catalogname = parts[0]
	}
	return rel
}

func strNodes(list []string) []*pg.Node {
	out := make([]*pg.Node, len(list))
	for i, s := range list {
		out[i] = pg.MakeStrNode(s)
	}
	return out
}

// fkActions are the actions of ON DELETE and ON UPDATE as the parse tree
// writes them.
var fkActions = map[string]string{"cascade": "c", "restrict": "r"}

// foreignKey reads (columns) REFERENCES name [(columns)] [ON DELETE
// action] [ON UPDATE action] [NOT VALID] after FOREIGN KEY, the actions
// CASCADE, RESTRICT, NO ACTION, SET NULL and SET DEFAULT without column
// lists.
func (l *quickLexer) foreignKey(c *pg.Constraint) bool {
	c.Contype = pg.ConstrType_CONSTR_FOREIGN
	cols, ok := l.columns()
	if !ok || l.word() != "references" {
		return false
	}
	c.FkAttrs = strNodes(cols)
	parts, loc, ok := l.name(3)
	if !ok {
		return false
	}
	c.Pktable = rangeVar(parts, loc, true)
	if l.at < len(l.text) && l.text[l.at] == '(' {
		pk, ok := l.columns()
		if !ok {
			return false
		}
		c.PkAttrs = strNodes(pk)
	}
	c.FkMatchtype, c.FkUpdAction, c.FkDelAction = "s", "a", "a"
	seen := map[string]bool{}
	for l.keyword("on") {
		which := l.word()
		if (which != "delete" && which != "update") || seen[which] {
			return false
		}
		seen[which] = true
		var action string
		switch w := l.word(); w {
		case "no":
			if l.word() != "action" {
				return false
			}
			action = "a"
		case "set":
			switch l.word() {
			case "null":
				action = "n"
			case "default":
				action = "d"
			default:
				return false
			}
		default:
			if action = fkActions[w]; action == "" {
				return false
			}
		}
		if l.at < len(l.text) && l.text[l.at] == '(' {
			return false // SET NULL (columns)
		}
		if which == "delete" {
			c.FkDelAction = action
		} else {
			c.FkUpdAction = action
		}
	}
	c.InitiallyValid = true
	if l.keyword("not") {
		if l.word() != "valid" {
			return false
		}
		c.SkipValidation, c.InitiallyValid = true, false
	}
	return !l.bad
}
