package inspect

import (
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/jackc/pgx/v5"
)

// foreignKeysQuery lists FOREIGN KEY constraints with the columns at both
// ends in key order (conkey and confkey pair up position by position),
// their deferrability, whether they were validated, and the action on
// deleting the referenced row. A key that
// references a partitioned table has one more row per referenced
// partition, whose conparentid is the key itself on the same table: those
// are left out.
const foreignKeysQuery = `
SELECT co.conrelid::int8, co.conname::text,
       ARRAY(SELECT a.attname::text
             FROM unnest(co.conkey) WITH ORDINALITY AS k(attnum, ord)
             JOIN pg_catalog.pg_attribute a ON a.attrelid = co.conrelid AND a.attnum = k.attnum
             ORDER BY k.ord),
       rn.nspname || '.' || r.relname,
       ARRAY(SELECT a.attname::text
             FROM unnest(co.confkey) WITH ORDINALITY AS k(attnum, ord)
             JOIN pg_catalog.pg_attribute a ON a.attrelid = co.confrelid AND a.attnum = k.attnum
             ORDER BY k.ord),
       co.condeferrable, co.condeferred, co.convalidated, co.confdeltype::text
FROM pg_catalog.pg_constraint co
JOIN pg_catalog.pg_class c ON c.oid = co.conrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_class r ON r.oid = co.confrelid
JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace
WHERE co.contype = 'f' AND c.relkind IN ('r', 'p') AND ` + systemSchemaSQL + `
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint p WHERE p.oid = co.conparentid AND p.conrelid = co.conrelid)
ORDER BY co.conrelid, co.conname`

func scanForeignKeys(rows pgx.Rows, b *builder) error {
	var (
		rel int64
		fk  = &catalog.ForeignKey{}
	)
	if err := rows.Scan(&rel, &fk.Name, &fk.Columns, &fk.RefTable, &fk.RefColumns, &fk.Deferrable, &fk.InitiallyDeferred, &fk.Validated, &fk.OnDelete); err != nil {
		return err
	}
	t := b.tables[rel]
	if t == nil {
		return nil
	}
	b.cat.AddForeignKey(t, fk)
	return nil
}
