package sqlparse

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
	r.cat.Queries = append(r.cat.Queries, q)
}
