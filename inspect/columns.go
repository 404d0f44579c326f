package inspect

import (
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/jackc/pgx/v5"
)

// columnsQuery lists the live columns of every table and materialized view,
// with whether the column's type is an enum, a generated column's
// expression and any other column's default as the server prints them. attidentity exists since PostgreSQL
// 10 and attgenerated since 12 (” when neither).
const columnsQuery = domainNotNullCTE + `
SELECT a.attrelid::int8, a.attnum, a.attname::text,
       pg_catalog.format_type(a.atttypid, a.atttypmod),
       a.attnotnull, a.attidentity <> '', a.attgenerated <> '',
       coalesce(d.not_null, false), ty.typtype = 'e',
       CASE WHEN a.attgenerated <> '' THEN pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) END,
       CASE WHEN a.attgenerated = '' THEN pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) END
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid
LEFT JOIN domain_not_null d ON d.oid = a.atttypid
LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
WHERE c.relkind IN ('r', 'p', 'm') AND a.attnum > 0 AND NOT a.attisdropped AND ` + systemSchemaSQL + `
ORDER BY a.attrelid, a.attnum`

func scanColumns(rows pgx.Rows, b *builder) error {
	var (
		rel        int64
		attnum     int16
		c          = &catalog.Column{}
		generation *string
		def        *string
	)
	if err := rows.Scan(&rel, &attnum, &c.Name, &c.Type, &c.NotNull, &c.Identity, &c.Generated, &c.DomainNotNull, &c.Enum, &generation, &def); err != nil {
		return err
	}
	if def != nil {
		c.Default = *def
	}
	if generation != nil {
		c.Generation = exprFromServer(*generation)
	}
	t := b.tables[rel]
	if t == nil {
		return nil
	}
	t.Columns = append(t.Columns, c)
	if b.columns[rel] == nil {
		b.columns[rel] = map[int16]string{}
	}
	b.columns[rel][attnum] = c.Name
	return nil
}
