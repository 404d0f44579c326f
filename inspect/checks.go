package inspect

import (
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/jackc/pgx/v5"
)

// checksQuery lists table CHECK constraints as the server prints them, with
// whether existing rows were validated (false after NOT VALID). conbin is
// the only source of the text since PostgreSQL 12 dropped consrc.
const checksQuery = `
SELECT co.conrelid::int8, co.conname::text,
       pg_catalog.pg_get_expr(co.conbin, co.conrelid, true), co.convalidated
FROM pg_catalog.pg_constraint co
JOIN pg_catalog.pg_class c ON c.oid = co.conrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE co.contype = 'c' AND c.relkind IN ('r', 'p') AND ` + systemSchemaSQL + `
ORDER BY co.conrelid, co.conname`

func scanChecks(rows pgx.Rows, b *builder) error {
	var (
		rel  int64
		text string
		ck   = &catalog.Check{}
	)
	if err := rows.Scan(&rel, &ck.Name, &text, &ck.Validated); err != nil {
		return err
	}
	t := b.tables[rel]
	if t == nil {
		return nil
	}
	ck.Expr, ck.SQL = exprFromServer(text), text
	b.cat.AddCheck(t, ck)
	return nil
}
