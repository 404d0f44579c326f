package replay

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
)

// Relations made from a query: CREATE TABLE AS, SELECT INTO and CREATE
// MATERIALIZED VIEW. Their columns are named after the select list. The
// server records none of them NOT NULL (attnotnull is false for every
// column such a statement makes), so neither does replay, whatever the
// query would prove.

// createTableAs handles CREATE TABLE AS and CREATE MATERIALIZED VIEW.
func (r *Replayer) createTableAs(cs *pg.CreateTableAsStmt) {
	if cs.Into == nil {
		return
	}
	sel := cs.Query.GetSelectStmt()
	switch cs.Objtype {
	case pg.ObjectType_OBJECT_TABLE:
		r.createTableFromSelect(cs.Into, sel, cs.IfNotExists, catalog.Ordinary)
	case pg.ObjectType_OBJECT_MATVIEW:
		r.createTableFromSelect(cs.Into, sel, cs.IfNotExists, catalog.MaterializedView)
	}
}

// createTableFromSelect makes a table or materialized view whose columns
// are named after the select list.
func (r *Replayer) createTableFromSelect(into *pg.IntoClause, sel *pg.SelectStmt, ifNotExists bool, kind catalog.TableKind) {
	s := r.relationSchema(into.Rel, into.Rel.Schemaname)
	if s == nil {
		return
	}
	name := into.Rel.Relname
	if s.RelationExists(name) {
		if !ifNotExists {
			r.note("42P07", "relation %q already exists", name)
		}
		return
	}
	t := &catalog.Table{Schema: s.Name, Name: name, Kind: kind, Pos: r.pos}
	names := nameList(into.ColNames)
	for i, c := range r.selectColumns(sel) {
		if i < len(names) {
			c.Name = names[i]
		}
		t.Columns = append(t.Columns, c)
	}
	r.cat.AddTable(t)
	r.record(catalog.ChangeCreateTable, t, name, "", nil)
}

// selectColumns are the output columns of a query: one per select-list
// entry, with * and t.* expanded from the FROM clause as far as replay knows
// the tables there.
func (r *Replayer) selectColumns(sel *pg.SelectStmt) []*catalog.Column {
	for sel != nil && sel.Larg != nil {
		sel = sel.Larg
	}
	if sel == nil {
		return nil
	}
	var out []*catalog.Column
	for _, target := range sel.TargetList {
		rt := target.GetResTarget()
		pos := r.at(rt.GetLocation())
		if qualifier, ok := starOf(rt.GetVal()); ok {
			for _, name := range r.fromColumns(sel.FromClause, qualifier) {
				out = append(out, &catalog.Column{Name: name, Pos: pos})
			}
			continue
		}
		name := rt.GetName()
		if name == "" {
			name = selectColumnName(rt.GetVal())
		}
		out = append(out, &catalog.Column{Name: name, Pos: pos})
	}
	return out
}

// starOf reports whether n is * or qualifier.*.
func starOf(n *pg.Node) (qualifier string, ok bool) {
	fields := n.GetColumnRef().GetFields()
	if len(fields) == 0 || fields[len(fields)-1].GetAStar() == nil {
		return "", false
	}
	if len(fields) > 1 {
		qualifier = fields[len(fields)-2].GetString_().GetSval()
	}
	return qualifier, true
}

// fromColumns lists the columns * stands for over a FROM clause, or those
// of the item called qualifier.
func (r *Replayer) fromColumns(from []*pg.Node, qualifier string) []string {
	var out []string
	for _, item := range from {
		out = append(out, r.fromItemColumns(item, qualifier)...)
	}
	return out
}

// fromItemColumns is fromColumns for one FROM item: a table, a join or a
// subquery. A join with USING or NATURAL shows each merged column once,
// first.
func (r *Replayer) fromItemColumns(n *pg.Node, qualifier string) []string {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		refName := rv.Relname
		if rv.GetAlias() != nil {
			refName = rv.GetAlias().GetAliasname()
		}
		if qualifier != "" && qualifier != refName {
			return nil
		}
		t := r.cat.ResolveTable(rv.Schemaname, rv.Relname)
		if t == nil {
			return nil
		}
		return aliased(columnNames(t), rv.GetAlias())
	case n.GetRangeSubselect() != nil:
		sub := n.GetRangeSubselect()
		if qualifier != "" && qualifier != sub.GetAlias().GetAliasname() {
			return nil
		}
		var names []string
		for _, c := range r.selectColumns(sub.Subquery.GetSelectStmt()) {
			names = append(names, c.Name)
		}
		return aliased(names, sub.GetAlias())
	case n.GetJoinExpr() != nil:
		j := n.GetJoinExpr()
		if qualifier != "" {
			return append(r.fromItemColumns(j.Larg, qualifier), r.fromItemColumns(j.Rarg, qualifier)...)
		}
		left, right := r.fromItemColumns(j.Larg, ""), r.fromItemColumns(j.Rarg, "")
		merged := nameList(j.UsingClause)
		if j.IsNatural {
			merged = nil
			for _, c := range left {
				if contains(right, c) {
					merged = append(merged, c)
				}
			}
		}
		out := append([]string(nil), merged...)
		for _, c := range append(left, right...) {
			if !contains(merged, c) {
				out = append(out, c)
			}
		}
		return aliased(out, j.GetAlias())
	}
	return nil
}

func columnNames(t *catalog.Table) []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// aliased renames the leading columns after an alias's column list.
func aliased(names []string, alias *pg.Alias) []string {
	renamed := nameList(alias.GetColnames())
	out := append([]string(nil), names...)
	for i := range out {
		if i < len(renamed) {
			out[i] = renamed[i]
		}
	}
	return out
}

// selectColumnName is the name PostgreSQL gives an unnamed select-list
// entry (FigureColname, in its common cases).
func selectColumnName(n *pg.Node) string {
	switch {
	case n.GetColumnRef() != nil:
		if e, ok := convertColumnRef(n).(*catalog.ColumnRef); ok {
			return e.Name
		}
	case n.GetFuncCall() != nil:
		return strings.ToLower(operatorName(n.GetFuncCall().Funcname))
	case n.GetTypeCast() != nil:
		if name := selectColumnName(n.GetTypeCast().Arg); name != "?column?" {
			return name
		}
		return operatorName(n.GetTypeCast().TypeName.GetNames())
	case n.GetCoalesceExpr() != nil:
		return "coalesce"
	case n.GetCaseExpr() != nil:
		return "case"
	case n.GetMinMaxExpr() != nil:
		if n.GetMinMaxExpr().Op == pg.MinMaxOp_IS_LEAST {
			return "least"
		}
		return "greatest"
	case n.GetAArrayExpr() != nil:
		return "array"
	case n.GetAExpr() != nil && n.GetAExpr().Kind == pg.A_Expr_Kind_AEXPR_NULLIF:
		return "nullif"
	}
	return "?column?"
}

// dropMaterializedView is DROP MATERIALIZED VIEW; DROP TABLE refuses one.
func (r *Replayer) dropMaterializedView(schema, name string, missingOk bool) {
	t := r.cat.ResolveTable(schema, name)
	switch {
	case t == nil:
		if !missingOk {
			r.note("42P01", "materialized view %q does not exist", displayName(schema, name))
		}
	case t.Kind != catalog.MaterializedView:
		r.note("42809", "%q is not a materialized view", t.Name)
	default:
		r.removeTable(t)
	}
}
