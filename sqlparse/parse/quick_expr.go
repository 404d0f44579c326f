package parse

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A table's CHECK and an index's WHERE are expressions of any shape, but
// short beside the columns around them: exprAt hands the parser the
// expression alone, as SELECT expr, and moves the locations of its tree to
// where the expression stands in the statement. The parser then spends
// nothing on the column list or the index's other parts, which quickParse
// has read, and the tree is the one the parser gives for the whole
// statement (the test holds them to each other).

// exprAt parses text[start:end], which must be one expression, and returns
// its tree with the locations of text; nil when the parser takes it for
// anything else (a list, an alias, a clause, a star) or refuses it.
func exprAt(text string, start, end int) *pg.Node {
	const head = "SELECT "
	tree, err := pg.Parse(head + text[start:end])
	if err != nil || len(tree.Stmts) != 1 {
		return nil
	}
	sel := tree.Stmts[0].GetStmt().GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 {
		return nil
	}
	target := sel.TargetList[0].GetResTarget()
	if target == nil || target.Name != "" || target.Val == nil || len(target.Indirection) > 0 {
		return nil
	}
	// Nothing but the one target: no FROM, ORDER BY, DISTINCT, INTO ...
	rest := proto.Clone(sel).(*pg.SelectStmt)
	rest.TargetList = nil
	if !proto.Equal(rest, &pg.SelectStmt{Op: pg.SetOperation_SETOP_NONE, LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT}) {
		return nil
	}
	if !relocate(target.Val.ProtoReflect(), int32(start-len(head))) {
		return nil
	}
	return target.Val
}

// relocate adds delta to every known location in a tree, and reports false
// when the tree holds a star (SELECT takes one where an expression does
// not).
func relocate(m protoreflect.Message, delta int32) bool {
	if _, star := m.Interface().(*pg.A_Star); star {
		return false
	}
	ok := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Name() == "location" && fd.Kind() == protoreflect.Int32Kind:
			if loc := v.Int(); loc >= 0 {
				m.Set(fd, protoreflect.ValueOfInt32(int32(loc)+delta))
			}
		case fd.IsList() && fd.Message() != nil:
			list := v.List()
			for i := 0; i < list.Len() && ok; i++ {
				ok = relocate(list.Get(i).Message(), delta)
			}
		case fd.Message() != nil && !fd.IsMap():
			ok = relocate(v.Message(), delta)
		}
		return ok
	})
	return ok
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
