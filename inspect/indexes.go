package inspect

import (
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/jackc/pgx/v5"
)

// indexesQueryTemplate lists every index of every table and materialized
// view with what the
// rules need. indkey holds each column's attribute number, 0 for an
// expression (whose text indexExpressionsQuery reads); indnkeyatts (11+)
// splits key columns from INCLUDE columns. The constraint join keeps only
// UNIQUE and PRIMARY KEY: a foreign key's conindid names the referenced
// index, which is not the constraint's own. %s is the NULLS NOT DISTINCT
// column, which only PostgreSQL 15 and later have.
const indexesQueryTemplate = `
SELECT i.indrelid::int8, i.indexrelid::int8, ic.relname::text, i.indisunique, i.indisprimary, %s,
       i.indisvalid, i.indisready, i.indnkeyatts::int4, i.indkey::int2[],
       pg_catalog.pg_get_expr(i.indpred, i.indrelid, true),
       am.amname::text,
       coalesce(co.conname::text, ''), coalesce(co.condeferrable, false), coalesce(co.condeferred, false),
       coalesce((SELECT pn.nspname || '.' || p.relname
                 FROM pg_catalog.pg_inherits ih
                 JOIN pg_catalog.pg_class p ON p.oid = ih.inhparent
                 JOIN pg_catalog.pg_namespace pn ON pn.oid = p.relnamespace
                 WHERE ih.inhrelid = i.indexrelid
                 LIMIT 1), '')
FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_am am ON am.oid = ic.relam
LEFT JOIN pg_catalog.pg_constraint co ON co.conindid = i.indexrelid AND co.conrelid = i.indrelid AND co.contype IN ('p', 'u')
WHERE c.relkind IN ('r', 'p', 'm') AND ` + systemSchemaSQL + `
ORDER BY i.indrelid, i.indexrelid`

// indexExpressionsQuery prints each expression key part with
// pg_get_indexdef(oid, k, true), only for indexes that have expressions:
// calling it for every column of every index costs most of the read on a
// large database.
const indexExpressionsQuery = `
SELECT i.indexrelid::int8, k, pg_catalog.pg_get_indexdef(i.indexrelid, k, true)
FROM pg_catalog.pg_index i
CROSS JOIN LATERAL generate_series(1, i.indnatts::int4) AS k
JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE i.indexprs IS NOT NULL AND i.indkey[k - 1] = 0 AND ` + systemSchemaSQL

func scanIndexExpressions(rows pgx.Rows, b *builder) error {
	var (
		index int64
		k     int32
		text  string
	)
	if err := rows.Scan(&index, &k, &text); err != nil {
		return err
	}
	if b.expressions[index] == nil {
		b.expressions[index] = map[int]string{}
	}
	b.expressions[index][int(k)] = text
	return nil
}

const (
	nullsNotDistinctColumn = "i.indnullsnotdistinct" // PostgreSQL 15+
	nullsDistinctAlways    = "false"                 // before 15 NULLs were always distinct
)

// indexesQuery is the index query for a server version.
func indexesQuery(version int) string {
	if version >= 150000 {
		return strings.Replace(indexesQueryTemplate, "%s", nullsNotDistinctColumn, 1)
	}
	return strings.Replace(indexesQueryTemplate, "%s", nullsDistinctAlways, 1)
}

// indexRow is one row of the index query.
type indexRow struct {
	rel        int64
	oid        int64
	ix         catalog.Index
	keyCount   int32
	attnums    []int16
	predicate  *string
	parentName string
}

func scanIndexes(rows pgx.Rows, b *builder) error {
	var r indexRow
	if err := rows.Scan(&r.rel, &r.oid, &r.ix.Name, &r.ix.Unique, &r.ix.Primary, &r.ix.NullsNotDistinct,
		&r.ix.Valid, &r.ix.Ready, &r.keyCount, &r.attnums, &r.predicate, &r.ix.Method,
		&r.ix.Constraint, &r.ix.Deferrable, &r.ix.InitiallyDeferred, &r.parentName); err != nil {
		return err
	}
	t := b.tables[r.rel]
	if t == nil {
		return nil
	}
	ix := b.index(r)
	b.cat.AddIndex(t, ix)
	b.snap.Indexes++
	return nil
}

// index builds the catalog index from a row: key parts become columns or
// parsed expressions, the rest are INCLUDE columns.
func (b *builder) index(r indexRow) *catalog.Index {
	ix := r.ix
	ix.ParentIndex = r.parentName
	text := &IndexText{}
	names := b.columns[r.rel]
	for k, attnum := range r.attnums {
		if k >= int(r.keyCount) {
			ix.Include = append(ix.Include, names[attnum])
			continue
		}
		if attnum != 0 {
			ix.Parts = append(ix.Parts, catalog.IndexPart{Column: names[attnum]})
			text.Parts = append(text.Parts, catalog.QuoteIdent(names[attnum]))
			continue
		}
		def := b.expressions[r.oid][k+1]
		ix.Parts = append(ix.Parts, catalog.IndexPart{Expr: exprFromServer(def)})
		text.Parts = append(text.Parts, def)
	}
	if r.predicate != nil {
		text.Predicate = *r.predicate
		ix.Predicate = exprFromServer(*r.predicate)
	}
	b.snap.IndexText[&ix] = text
	return &ix
}
