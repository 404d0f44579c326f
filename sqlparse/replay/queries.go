package replay

import (
	pg "github.com/pganalyze/pg_query_go/v5"

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
	r.hist.Queries = append(r.hist.Queries, q)
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
