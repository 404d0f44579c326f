package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// uniqueIndex is a unique index with at least one key part that may be
// NULL: the recall denominator, each to be judged by hand.
type uniqueIndex struct {
	Object     string   // schema.table.index, as findings name it
	Parts      []string // every key part, columns and expressions
	Nullable   []string // the parts that may be NULL (expressions count)
	Predicate  string   // the partial index's WHERE, "" when none
	Constraint string   // "u" or "p" when a constraint owns the index
}

func (u uniqueIndex) key() string { return strings.Join(u.Parts, ", ") }

// nullableUniqueIndexes is the one catalog query that lists them: every
// unique index, NULLS DISTINCT, with a key part that is an expression or a
// column that may hold NULL (neither NOT NULL nor of a domain declared NOT
// NULL). Partitions of a partitioned index are left out (the parent index is
// the one judged), and so are extensions' own tables. CHECK constraints and
// predicates that prove a part non-null are for the judge to read: the query
// lists by declaration, so a rule that proves more is still measured
// against every candidate.
const nullableUniqueIndexes = `
SELECT n.nspname || '.' || t.relname || '.' || i.relname, p.parts, p.nullable,
       coalesce(pg_get_expr(x.indpred, x.indrelid, true), ''),
       coalesce((SELECT c.contype::text FROM pg_constraint c
                 WHERE c.conindid = x.indexrelid AND c.contype IN ('u', 'p')), '')
FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
CROSS JOIN LATERAL (
  SELECT array_agg(part ORDER BY k) AS parts,
         array_agg(part ORDER BY k) FILTER (WHERE nullable) AS nullable
  FROM (SELECT k, pg_get_indexdef(x.indexrelid, k, true) AS part,
               x.indkey[k - 1] = 0 OR NOT EXISTS (
                 SELECT 1 FROM pg_attribute a LEFT JOIN pg_type ty ON ty.oid = a.atttypid
                 WHERE a.attrelid = x.indrelid AND a.attnum = x.indkey[k - 1]
                   AND (a.attnotnull OR coalesce(ty.typnotnull, false))) AS nullable
        FROM generate_series(1, x.indnkeyatts) AS k) AS key_parts
) AS p
WHERE x.indisunique
  AND NOT %s
  AND NOT i.relispartition
  AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg\_toast%%'
  AND NOT EXISTS (SELECT 1 FROM pg_depend d
                  WHERE d.classid = 'pg_class'::regclass AND d.objid = t.oid AND d.deptype = 'e')
  AND p.nullable IS NOT NULL
ORDER BY 1`

// listNullableUniqueIndexes runs the query on the corpus's database.
func listNullableUniqueIndexes(ctx context.Context, dsn string) ([]uniqueIndex, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	// NULLS NOT DISTINCT (no hole) exists from PostgreSQL 15 on.
	nnd := "false"
	var version int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		return nil, err
	}
	if version >= 150000 {
		nnd = "x.indnullsnotdistinct"
	}
	rows, err := conn.Query(ctx, fmt.Sprintf(nullableUniqueIndexes, nnd))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (uniqueIndex, error) {
		var u uniqueIndex
		err := row.Scan(&u.Object, &u.Parts, &u.Nullable, &u.Predicate, &u.Constraint)
		return u, err
	})
}
