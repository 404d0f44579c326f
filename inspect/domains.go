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

// domainsQuery lists user domains with their base type and NOT NULL.
const domainsQuery = domainNotNullCTE + `
SELECT n.nspname::text, t.typname::text,
       pg_catalog.format_type(t.typbasetype, t.typtypmod), d.not_null
FROM pg_catalog.pg_type t
JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
JOIN domain_not_null d ON d.oid = t.oid
WHERE ` + systemSchemaSQL + `
ORDER BY 1, 2`

func scanDomains(rows pgx.Rows, b *builder) error {
	d := &catalog.Domain{}
	if err := rows.Scan(&d.Schema, &d.Name, &d.Type, &d.NotNull); err != nil {
		return err
	}
	if s := b.cat.Schema(d.Schema); s != nil {
		s.Domains[d.Name] = d
	}
	return nil
}
