package parse

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A table's CHECK and an index's WHERE are expressions of any shape, but
// short beside the columns around them: exprAt hands the parser the
// expression alone, as SELECT expr at the expression's own offset in the
// statement, so that the locations of its tree are the statement's. The
// parser then spends nothing on the column list or the index's other parts,
// which quickParse has read, and the tree is the one the parser gives for
// the whole statement (the test holds them to each other).

// exprAt parses text[start:end], which must be one expression, and returns
// its tree with the locations of text; nil when the parser takes it for
// anything else (a list, an alias, a clause, a star) or refuses it. The
// expression is handed over at its own offset, behind white space, so the
// parser's locations are already the statement's.
func exprAt(text string, start, end int) *pg.Node {
	const head = "SELECT "
	if start < len(head) {
		return nil
	}
	tree, err := pg.Parse(strings.Repeat(" ", start-len(head)) + head + text[start:end])
	if err != nil || len(tree.Stmts) != 1 {
		return nil
	}
	sel := tree.Stmts[0].GetStmt().GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || !onlyTargets(sel) {
		return nil
	}
	target := sel.TargetList[0].GetResTarget()
	if target == nil || target.Name != "" || target.Val == nil || len(target.Indirection) > 0 || hasStar(target.Val.ProtoReflect()) {
		return nil
	}
	return target.Val
}

// onlyTargets reports whether a SELECT has nothing but its target list:
// no FROM, WHERE, ORDER BY, DISTINCT, INTO, set operation ...
func onlyTargets(s *pg.SelectStmt) bool {
	return len(s.DistinctClause) == 0 && s.IntoClause == nil && len(s.FromClause) == 0 && s.WhereClause == nil &&
		len(s.GroupClause) == 0 && !s.GroupDistinct && s.HavingClause == nil && len(s.WindowClause) == 0 &&
		len(s.ValuesLists) == 0 && len(s.SortClause) == 0 && s.LimitOffset == nil && s.LimitCount == nil &&
		s.LimitOption == pg.LimitOption_LIMIT_OPTION_DEFAULT && len(s.LockingClause) == 0 && s.WithClause == nil &&
		s.Op == pg.SetOperation_SETOP_NONE && !s.All && s.Larg == nil && s.Rarg == nil
}

// hasStar reports whether a tree holds a star, which SELECT takes where an
// expression does not.
func hasStar(m protoreflect.Message) bool {
	if _, star := m.Interface().(*pg.A_Star); star {
		return true
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			list := v.List()
			for i := 0; i < list.Len() && !found; i++ {
				found = hasStar(list.Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			found = hasStar(v.Message())
		}
		return !found
	})
	return found
}

// closingParen is the offset of the ')' that closes the '(' at open, past
// string constants and quoted names; -1 when there is none, or when a
// comment, a dollar quote or an escape string could hide one.
func closingParen(text string, open int) int {
	depth := 0
	for i := open; i < len(text); i++ {
		switch c := text[i]; c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		case '\'', '"':
			if c == '\'' && i > 0 && (text[i-1]|0x20 == 'e' || text[i-1]|0x20 == 'u' || text[i-1] == '&') {
				return -1
			}
			j := i + 1
			for j < len(text) && text[j] != c {
				j++
			}
			if j >= len(text) {
				return -1
			}
			i = j // a doubled quote closes and opens again
		case '$':
			return -1
		case '-', '/':
			if i+1 < len(text) && (c == '-' && text[i+1] == '-' || c == '/' && text[i+1] == '*') {
				return -1
			}
		}
	}
	return -1
}

// nullTests reads the predicate soft deletes and optional keys give a
// partial index, column IS [NOT] NULL tests joined by AND, in any
// brackets, as the parser builds it (an AND on the left of another joins
// it, as the grammar's makeAndExpr does); nil for anything else.
func nullTests(text string, start, end int) *pg.Node {
	t := tableLexer{&quickLexer{text: text[:end], at: start}}
	n := t.andTests()
	t.space()
	if n == nil || t.bad || t.at != end {
		return nil
	}
	return n
}

func (t tableLexer) andTests() *pg.Node {
	left := t.nullTest()
	for left != nil {
		save := t.at
		if w, at := t.bareWord(); w == "and" {
			right := t.nullTest()
			if right == nil {
				return nil
			}
			if b := left.GetBoolExpr(); b != nil && b.Boolop == pg.BoolExprType_AND_EXPR {
				b.Args = append(b.Args, right)
			} else {
				left = &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR,
					Args: []*pg.Node{left, right}, Location: int32(at)}}}
			}
			continue
		}
		t.at = save
		return left
	}
	return nil
}

// nullTest reads (tests) or column IS [NOT] NULL.
func (t tableLexer) nullTest() *pg.Node {
	t.space()
	if t.punct('(') {
		n := t.andTests()
		t.space()
		if n == nil || !t.punct(')') {
			return nil
		}
		return n
	}
	col, loc := t.ident()
	if col == "" {
		return nil
	}
	is, at := t.bareWord()
	if is != "is" {
		return nil
	}
	kind := pg.NullTestType_IS_NULL
	w, _ := t.bareWord()
	if w == "not" {
		kind = pg.NullTestType_IS_NOT_NULL
		w, _ = t.bareWord()
	}
	if w != "null" {
		return nil
	}
	ref := &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: []*pg.Node{pg.MakeStrNode(col)}, Location: int32(loc)}}}
	return &pg.Node{Node: &pg.Node_NullTest{NullTest: &pg.NullTest{Arg: ref, Nulltesttype: kind, Location: int32(at)}}}
}
