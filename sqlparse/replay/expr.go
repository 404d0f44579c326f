package replay

import (
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// ParseExpr parses expression text as the server prints it (pg_get_expr,
// pg_get_indexdef column text) into the same catalog.Expr that replay builds
// from a migration, so that a live catalog and a replayed one compare equal.
func ParseExpr(text string) (catalog.Expr, error) {
	tree, err := pg.Parse("SELECT " + text)
	if err != nil {
		return nil, fmt.Errorf("cannot parse expression %q: %v", scan.Excerpt(text, 60), err)
	}
	if len(tree.Stmts) != 1 {
		return nil, fmt.Errorf("cannot parse expression %q: not a single expression", scan.Excerpt(text, 60))
	}
	sel := tree.Stmts[0].GetStmt().GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || len(sel.FromClause) != 0 || sel.WhereClause != nil || sel.Op != pg.SetOperation_SETOP_NONE {
		return nil, fmt.Errorf("cannot parse expression %q: not a single expression", scan.Excerpt(text, 60))
	}
	rt := sel.TargetList[0].GetResTarget()
	if rt == nil || rt.Val == nil || rt.Name != "" {
		return nil, fmt.Errorf("cannot parse expression %q: not a single expression", scan.Excerpt(text, 60))
	}
	return convertExpr(rt.Val), nil
}

// convertExpr turns a raw parse tree expression into the model. Shapes the
// null-safety reasoner does not look into become Unknown with their SQL.
func convertExpr(n *pg.Node) catalog.Expr {
	if n == nil {
		return nil
	}
	switch {
	case n.GetBoolExpr() != nil:
		return convertBoolExpr(n)
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		return &catalog.NullTest{Arg: convertExpr(nt.Arg), IsNull: nt.Nulltesttype == pg.NullTestType_IS_NULL}
	case n.GetBooleanTest() != nil:
		return convertBooleanTest(n.GetBooleanTest())
	case n.GetAExpr() != nil:
		return convertAExpr(n)
	case n.GetColumnRef() != nil:
		return convertColumnRef(n)
	case n.GetAConst() != nil:
		return convertConst(n.GetAConst())
	case n.GetFuncCall() != nil:
		return convertFuncCall(n)
	case n.GetCoalesceExpr() != nil:
		return &catalog.Func{Name: "coalesce", Args: convertList(n.GetCoalesceExpr().Args)}
	case n.GetMinMaxExpr() != nil:
		mm := n.GetMinMaxExpr()
		name := "greatest"
		if mm.Op == pg.MinMaxOp_IS_LEAST {
			name = "least"
		}
		return &catalog.Func{Name: name, Args: convertList(mm.Args)}
	case n.GetTypeCast() != nil:
		return convertTypeCast(n)
	case n.GetAArrayExpr() != nil:
		return &catalog.List{Items: convertList(n.GetAArrayExpr().Elements)}
	}
	return unknown(n)
}

func convertList(nodes []*pg.Node) []catalog.Expr {
	out := make([]catalog.Expr, 0, len(nodes))
	for _, a := range nodes {
		out = append(out, convertExpr(a))
	}
	return out
}

func convertBoolExpr(n *pg.Node) catalog.Expr {
	b := n.GetBoolExpr()
	args := convertList(b.Args)
	switch b.Boolop {
	case pg.BoolExprType_AND_EXPR:
		return &catalog.And{Args: args}
	case pg.BoolExprType_OR_EXPR:
		return &catalog.Or{Args: args}
	case pg.BoolExprType_NOT_EXPR:
		if len(args) == 1 {
			return &catalog.Not{Arg: args[0]}
		}
	}
	return unknown(n)
}

var boolTestWords = map[pg.BoolTestType]string{
	pg.BoolTestType_IS_TRUE:        "TRUE",
	pg.BoolTestType_IS_NOT_TRUE:    "NOT TRUE",
	pg.BoolTestType_IS_FALSE:       "FALSE",
	pg.BoolTestType_IS_NOT_FALSE:   "NOT FALSE",
	pg.BoolTestType_IS_UNKNOWN:     "UNKNOWN",
	pg.BoolTestType_IS_NOT_UNKNOWN: "NOT UNKNOWN",
}

func convertBooleanTest(bt *pg.BooleanTest) catalog.Expr {
	return &catalog.BoolTest{Arg: convertExpr(bt.Arg), Test: boolTestWords[bt.Booltesttype]}
}

// comparisonOps maps parser operator names to the Compare spelling; any
// other operator is a Func with Op set.
var comparisonOps = map[string]string{
	"=": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
	"~~": "LIKE", "~~*": "ILIKE", "~": "~",
}

func convertAExpr(n *pg.Node) catalog.Expr {
	a := n.GetAExpr()
	op := operatorName(a.Name)
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		return convertOperator(op, a.Lexpr, a.Rexpr)
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		cmp := &catalog.Compare{Op: comparisonOps[strings.TrimPrefix(op, "!")], Left: convertExpr(a.Lexpr), Right: convertExpr(a.Rexpr)}
		if strings.HasPrefix(op, "!") {
			return &catalog.Not{Arg: cmp}
		}
		return cmp
	case pg.A_Expr_Kind_AEXPR_IN:
		cmp := &catalog.Compare{Op: "IN", Left: convertExpr(a.Lexpr), Right: &catalog.List{Items: convertList(a.Rexpr.GetList().GetItems())}}
		if op == "<>" {
			return &catalog.Not{Arg: cmp}
		}
		return cmp
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		return convertAnyAll(n, op, a)
	case pg.A_Expr_Kind_AEXPR_DISTINCT:
		return &catalog.Compare{Op: "IS DISTINCT FROM", Left: convertExpr(a.Lexpr), Right: convertExpr(a.Rexpr)}
	case pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return &catalog.Compare{Op: "IS NOT DISTINCT FROM", Left: convertExpr(a.Lexpr), Right: convertExpr(a.Rexpr)}
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		return &catalog.Func{Name: "nullif", Args: []catalog.Expr{convertExpr(a.Lexpr), convertExpr(a.Rexpr)}}
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		return convertBetween(n, a)
	}
	return unknown(n)
}

// convertOperator builds a comparison, or a Func with Op for any other
// operator (||, +, ->>, unary minus ...).
func convertOperator(op string, l, r *pg.Node) catalog.Expr {
	if cmp, ok := comparisonOps[op]; ok && l != nil {
		return &catalog.Compare{Op: cmp, Left: convertExpr(l), Right: convertExpr(r)}
	}
	if l == nil {
		return &catalog.Func{Name: op, Op: true, Args: []catalog.Expr{convertExpr(r)}}
	}
	return &catalog.Func{Name: op, Op: true, Args: []catalog.Expr{convertExpr(l), convertExpr(r)}}
}

// convertAnyAll handles "x = ANY (...)". The server prints "x IN ('a', 'b')"
// as "x = ANY (ARRAY['a', 'b'])" and NOT IN as "<> ALL (ARRAY[...])", so an
// array literal on the right turns back into the IN form both sources share.
func convertAnyAll(n *pg.Node, op string, a *pg.A_Expr) catalog.Expr {
	right := convertExpr(a.Rexpr)
	list, isList := right.(*catalog.List)
	switch {
	case a.Kind == pg.A_Expr_Kind_AEXPR_OP_ANY && op == "=" && isList:
		return &catalog.Compare{Op: "IN", Left: convertExpr(a.Lexpr), Right: list}
	case a.Kind == pg.A_Expr_Kind_AEXPR_OP_ALL && op == "<>" && isList:
		return &catalog.Not{Arg: &catalog.Compare{Op: "IN", Left: convertExpr(a.Lexpr), Right: list}}
	case a.Kind == pg.A_Expr_Kind_AEXPR_OP_ANY && op == "=":
		return &catalog.Compare{Op: "= ANY", Left: convertExpr(a.Lexpr), Right: right}
	}
	return unknown(n)
}

// convertBetween spells BETWEEN out as the server prints it:
// (x >= a) AND (x <= b), and NOT BETWEEN as (x < a) OR (x > b).
func convertBetween(n *pg.Node, a *pg.A_Expr) catalog.Expr {
	bounds := a.Rexpr.GetList().GetItems()
	if len(bounds) != 2 {
		return unknown(n)
	}
	x, lo, hi := convertExpr(a.Lexpr), convertExpr(bounds[0]), convertExpr(bounds[1])
	if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
		return &catalog.Or{Args: []catalog.Expr{
			&catalog.Compare{Op: "<", Left: x, Right: lo},
			&catalog.Compare{Op: ">", Left: x, Right: hi},
		}}
	}
	return &catalog.And{Args: []catalog.Expr{
		&catalog.Compare{Op: ">=", Left: x, Right: lo},
		&catalog.Compare{Op: "<=", Left: x, Right: hi},
	}}
}

// operatorName is the last part of a possibly schema-qualified operator name
// (OPERATOR(pg_catalog.=) is "=").
func operatorName(names []*pg.Node) string {
	if len(names) == 0 {
		return ""
	}
	return names[len(names)-1].GetString_().GetSval()
}

func convertColumnRef(n *pg.Node) catalog.Expr {
	fields := n.GetColumnRef().Fields
	if len(fields) == 0 || fields[len(fields)-1].GetString_() == nil {
		return unknown(n)
	}
	return &catalog.ColumnRef{Name: fields[len(fields)-1].GetString_().GetSval()}
}

// convertConst keeps the literal in SQL form: 'x', 42, 1.5, true.
func convertConst(c *pg.A_Const) catalog.Expr {
	if c.Isnull {
		return &catalog.Const{Null: true}
	}
	switch v := c.Val.(type) {
	case *pg.A_Const_Ival:
		return &catalog.Const{Value: strconv.Itoa(int(v.Ival.GetIval()))}
	case *pg.A_Const_Fval:
		return &catalog.Const{Value: v.Fval.GetFval()}
	case *pg.A_Const_Boolval:
		return &catalog.Const{Value: strconv.FormatBool(v.Boolval.GetBoolval())}
	case *pg.A_Const_Sval:
		return &catalog.Const{Value: quoteLiteral(v.Sval.GetSval())}
	case *pg.A_Const_Bsval:
		return &catalog.Const{Value: v.Bsval.GetBsval()}
	}
	return &catalog.Const{Null: true}
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func convertFuncCall(n *pg.Node) catalog.Expr {
	f := n.GetFuncCall()
	if f.AggStar || f.Over != nil || f.AggFilter != nil || len(f.AggOrder) > 0 || f.AggDistinct {
		return unknown(n)
	}
	name := strings.ToLower(operatorName(f.Funcname))
	return &catalog.Func{Name: name, Args: convertList(f.Args)}
}

// textTypes are the casts the server wraps around varchar columns and that a
// migration never writes; dropping them on a column keeps both forms equal.
var textTypes = map[string]bool{"text": true, "varchar": true}

// numericTypes are the types whose string-literal casts ('-1'::integer, as
// the server prints negative numbers) are really numbers.
var numericTypes = map[string]bool{
	"int2": true, "int4": true, "int8": true, "numeric": true, "float4": true, "float8": true,
}

// convertTypeCast drops casts that only the server writes: a cast of a
// constant ('x'::text is 'x') and a cast of a column to a text type.
func convertTypeCast(n *pg.Node) catalog.Expr {
	tc := n.GetTypeCast()
	typ := typeNameString(tc.TypeName)
	arg := convertExpr(tc.Arg)
	switch x := arg.(type) {
	case *catalog.Const:
		if numericTypes[typ] && strings.HasPrefix(x.Value, "'") {
			if v := strings.Trim(x.Value, "'"); isNumber(v) {
				return &catalog.Const{Value: v}
			}
		}
		return x
	case *catalog.List:
		if allConst(x.Items) {
			return x
		}
	case *catalog.ColumnRef:
		if textTypes[typ] {
			return x
		}
	}
	return &catalog.Func{Name: typ, Cast: true, Args: []catalog.Expr{arg}}
}

func allConst(items []catalog.Expr) bool {
	for _, it := range items {
		if _, ok := it.(*catalog.Const); !ok {
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// typeNameString is the type's last name part with array brackets, so
// pg_catalog.int4 and integer are both int4.
func typeNameString(t *pg.TypeName) string {
	if t == nil || len(t.Names) == 0 {
		return ""
	}
	name := operatorName(t.Names)
	if len(t.ArrayBounds) > 0 {
		name += "[]"
	}
	return name
}

// unknown renders a node back to SQL through the deparser, so the text is
// the same whichever way the expression was spelled.
func unknown(n *pg.Node) catalog.Expr {
	return &catalog.Unknown{Text: deparseExpr(n)}
}

// runnableSQL is an expression as SQL the server can run, for a copy of
// the table (a CHECK, a default): the deparser's text, or "" when it
// cannot write the expression, which a copy then lacks.
func runnableSQL(n *pg.Node) string {
	if n == nil {
		return ""
	}
	if s := deparseExpr(n); s != "?" {
		return s
	}
	return ""
}

func deparseExpr(n *pg.Node) string {
	if s, ok := quickDeparse(n); ok {
		return s
	}
	return deparserText(n)
}

// deparserText is the deparser's text for an expression, or "?".
func deparserText(n *pg.Node) string {
	tree := &pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
		TargetList:  []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}},
		Op:          pg.SetOperation_SETOP_NONE,
		LimitOption: pg.LimitOption_LIMIT_OPTION_DEFAULT,
	}}}}}}
	out, err := pg.Deparse(tree)
	if err != nil {
		return "?"
	}
	return strings.TrimPrefix(out, "SELECT ")
}
