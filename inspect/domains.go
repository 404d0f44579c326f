package inspect

import (
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/jackc/pgx/v5"
)

// domainNotNullCTE says, for each domain, whether it or any domain it is
// built on is NOT NULL: a domain over a NOT NULL domain forbids NULL too,
// though its own typnotnull is false.
const domainNotNullCTE = `
WITH RECURSIVE domain_chain(oid, base, not_null) AS (
  SELECT t.oid, t.typbasetype, t.typnotnull FROM pg_catalog.pg_type t WHERE t.typtype = 'd'
  UNION ALL
  SELECT c.oid, t.typbasetype, t.typnotnull
  FROM domain_chain c JOIN pg_catalog.pg_type t ON t.oid = c.base AND t.typtype = 'd'
), domain_not_null AS (
  SELECT oid, bool_or(not_null) AS not_null FROM domain_chain GROUP BY oid
)`

// domainsQuery lists user domains with their base type, NOT NULL and their
// own CHECK constraints (name, expression as the server prints it, and
// whether existing values were validated), which a witness row must pass.
const domainsQuery = domainNotNullCTE + `
SELECT n.nspname::text, t.typname::text,
       pg_catalog.format_type(t.typbasetype, t.typtypmod), d.not_null,
       coalesce(ARRAY(SELECT co.conname::text FROM pg_catalog.pg_constraint co
                      WHERE co.contypid = t.oid AND co.contype = 'c' ORDER BY co.conname), '{}')::text[],
       coalesce(ARRAY(SELECT pg_catalog.pg_get_expr(co.conbin, 0, true) FROM pg_catalog.pg_constraint co
                      WHERE co.contypid = t.oid AND co.contype = 'c' ORDER BY co.conname), '{}')::text[],
       coalesce(ARRAY(SELECT co.convalidated FROM pg_catalog.pg_constraint co
                      WHERE co.contypid = t.oid AND co.contype = 'c' ORDER BY co.conname), '{}')::bool[]
FROM pg_catalog.pg_type t
JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
JOIN domain_not_null d ON d.oid = t.oid
WHERE ` + systemSchemaSQL + `
ORDER BY 1, 2`

func scanDomains(rows pgx.Rows, b *builder) error {
	d := &catalog.Domain{}
	var names, texts []string
	var validated []bool
	if err := rows.Scan(&d.Schema, &d.Name, &d.Type, &d.NotNull, &names, &texts, &validated); err != nil {
		return err
	}
	for i := range names {
		if i < len(texts) && i < len(validated) {
			d.Checks = append(d.Checks, &catalog.Check{Name: names[i], Expr: exprFromServer(texts[i]), SQL: texts[i], Validated: validated[i]})
		}
	}
	if s := b.cat.Schema(d.Schema); s != nil {
		s.Domains[d.Name] = d
	}
	return nil
}

// enumsQuery lists user enum types with their labels in their sort order.
const enumsQuery = `
SELECT n.nspname::text, t.typname::text,
       coalesce(ARRAY(SELECT e.enumlabel::text FROM pg_catalog.pg_enum e
                      WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder), '{}')::text[]
FROM pg_catalog.pg_type t
JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
WHERE t.typtype = 'e' AND ` + systemSchemaSQL + `
ORDER BY 1, 2`

func scanEnums(rows pgx.Rows, b *builder) error {
	e := &catalog.Enum{}
	if err := rows.Scan(&e.Schema, &e.Name, &e.Labels); err != nil {
		return err
	}
	if s := b.cat.Schema(e.Schema); s != nil {
		s.Enums[e.Name] = e
	}
	return nil
}
