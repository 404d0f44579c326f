package replay

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/idemcheck/idemcheck/catalog"
)

// insertStmt records an INSERT ... ON CONFLICT as a catalog.Query; the
// INSERT changes no schema, so nothing else happens. The arbiter is not
// resolved here: the query may come from a query file read before or after
// the migration that creates its index, and the rule matches it against the
// final catalog.
func (r *Replayer) insertStmt(ins *pg.InsertStmt) {
	oc := ins.OnConflictClause
	if oc == nil || ins.Relation == nil {
		return
	}
	q := catalog.Query{
		Pos:      r.pos,
		File:     r.st.File,
		Schema:   ins.Relation.Schemaname,
		Table:    ins.Relation.Relname,
		DoUpdate: oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE,
	}
	if inf := oc.Infer; inf != nil {
		q.Target = indexParts(inf.IndexElems)
		q.Where = convertExpr(inf.WhereClause)
		q.Constraint = inf.Conname
	}
	for _, c := range ins.Cols {
		q.Columns = append(q.Columns, c.GetResTarget().GetName())
	}
	if sel := ins.SelectStmt.GetSelectStmt(); sel != nil && len(sel.ValuesLists) > 0 {
		q.Values = insertValues(sel.ValuesLists)
	}
	if r.inBody == 0 {
		q.SQL, q.Params = r.statementParams(ins)
	}
	r.hist.Queries = append(r.hist.Queries, q)
}

// statementParams returns the text of the statement being replayed and the
// parameters in it: $n, sqlc.arg(name) / sqlc.narg(name) / sqlc.slice(name)
// and @name (sqlc's forms, which parse as a function call and a prefix
// operator), each with the VALUES position it fills.
func (r *Replayer) statementParams(ins *pg.InsertStmt) (string, []catalog.QueryParam) {
	start, end := r.span[0], r.span[1]
	text := r.st.Text
	if start < 0 || end > len(text) || start > end {
		return "", nil
	}
	positions := map[int]int{}
	if sel := ins.SelectStmt.GetSelectStmt(); sel != nil {
		for _, row := range sel.ValuesLists {
			for i, item := range row.GetList().GetItems() {
				for item.GetTypeCast() != nil {
					item = item.GetTypeCast().Arg
				}
				if loc, ok := paramLocation(item); ok {
					positions[loc] = i
				}
			}
		}
	}
	var params []catalog.QueryParam
	walkMessages(ins.ProtoReflect(), func(m protoreflect.Message) {
		n, ok := m.Interface().(*pg.Node)
		if !ok {
			return
		}
		loc, ok := paramLocation(n)
		if !ok || loc < start || loc >= end {
			return
		}
		stop := paramEnd(text, loc, end)
		pos, inValues := positions[loc]
		if !inValues {
			pos = -1
		}
		params = append(params, catalog.QueryParam{Start: loc - start, End: stop - start, Text: text[loc:stop], Position: pos})
	})
	slices.SortFunc(params, func(a, b catalog.QueryParam) int { return a.Start - b.Start })
	params = slices.CompactFunc(params, func(a, b catalog.QueryParam) bool { return a.Start == b.Start })
	return strings.TrimSpace(text[start:end]), shiftParams(params, text[start:end])
}

// shiftParams moves the offsets past the spaces TrimSpace takes off the
// front of the statement.
func shiftParams(params []catalog.QueryParam, text string) []catalog.QueryParam {
	lead := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
	for i := range params {
		params[i].Start -= lead
		params[i].End -= lead
	}
	return params
}

// paramLocation reports whether n is a parameter and where it starts.
func paramLocation(n *pg.Node) (int, bool) {
	switch {
	case n.GetParamRef() != nil:
		return int(n.GetParamRef().Location), true
	case n.GetFuncCall() != nil:
		f := n.GetFuncCall()
		if names := nameList(f.Funcname); len(names) == 2 && names[0] == "sqlc" &&
			(names[1] == "arg" || names[1] == "narg" || names[1] == "slice") {
			return int(f.Location), true
		}
	case n.GetAExpr() != nil:
		a := n.GetAExpr()
		if a.Kind == pg.A_Expr_Kind_AEXPR_OP && a.Lexpr == nil && operatorName(a.Name) == "@" && a.Rexpr.GetColumnRef() != nil {
			return int(a.Location), true
		}
	}
	return 0, false
}

// paramEnd is where the parameter starting at loc ends: after $n's digits,
// @name's identifier, or sqlc.arg(...)'s closing parenthesis.
func paramEnd(text string, loc, limit int) int {
	i := loc + 1
	switch text[loc] {
	case '$':
		for i < limit && text[i] >= '0' && text[i] <= '9' {
			i++
		}
	case '@':
		for i < limit && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		for i < limit && identByte(text[i]) {
			i++
		}
	default:
		depth := 0
		for ; i < limit; i++ {
			if text[i] == '(' {
				depth++
			} else if text[i] == ')' {
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
	}
	return i
}

// insertValues says, per position of VALUES rows, whether every row writes
// a constant other than NULL there, some row writes NULL, or it cannot be
// told (a parameter, an expression, DEFAULT).
func insertValues(rows []*pg.Node) []catalog.InsertValue {
	var out []catalog.InsertValue
	for r, row := range rows {
		for i, item := range row.GetList().GetItems() {
			v := insertValue(item)
			switch {
			case i >= len(out):
				if r > 0 {
					v = catalog.ValueUnknown // a ragged VALUES list: the server refuses it anyway
				}
				out = append(out, v)
			case v == catalog.ValueNull || out[i] == catalog.ValueNull:
				out[i] = catalog.ValueNull
			case v != out[i]:
				out[i] = catalog.ValueUnknown
			}
		}
	}
	return out
}

func insertValue(n *pg.Node) catalog.InsertValue {
	if tc := n.GetTypeCast(); tc != nil {
		return insertValue(tc.Arg)
	}
	if c := n.GetAConst(); c != nil {
		if c.Isnull {
			return catalog.ValueNull
		}
		return catalog.ValueNotNull
	}
	return catalog.ValueUnknown
}
