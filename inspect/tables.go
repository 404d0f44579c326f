package inspect

import (
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/jackc/pgx/v5"
)

// tablesQuery lists ordinary and partitioned tables and materialized views
// with their parents (pg_inherits holds both partition parents and INHERITS
// parents). relispartition exists since PostgreSQL 10.
const tablesQuery = `
SELECT c.oid::int8, n.nspname::text, c.relname::text, c.relkind::text, c.relispartition,
       coalesce(ARRAY(
         SELECT pn.nspname || '.' || p.relname
         FROM pg_catalog.pg_inherits i
         JOIN pg_catalog.pg_class p ON p.oid = i.inhparent
         JOIN pg_catalog.pg_namespace pn ON pn.oid = p.relnamespace
         WHERE i.inhrelid = c.oid
         ORDER BY i.inhseqno), '{}')::text[]
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'm') AND ` + systemSchemaSQL + `
ORDER BY 2, 3`

func scanTables(rows pgx.Rows, b *builder) error {
	var (
		oid         int64
		t           = &catalog.Table{}
		kind        string
		isPartition bool
		parents     []string
	)
	if err := rows.Scan(&oid, &t.Schema, &t.Name, &kind, &isPartition, &parents); err != nil {
		return err
	}
	if !b.filter.TableIncluded(t.Schema, t.Name) {
		return nil
	}
	switch kind {
	case "p":
		t.Kind = catalog.Partitioned
	case "m":
		t.Kind = catalog.MaterializedView
	}
	if isPartition && len(parents) > 0 {
		t.PartitionOf = parents[0]
	} else {
		t.Inherits = parents
	}
	b.cat.AddSchema(t.Schema)
	b.cat.AddTable(t)
	b.tables[oid] = t
	if t.Kind != catalog.MaterializedView {
		b.snap.Tables++
	}
	return nil
}
