package inspect

import (
	"github.com/jackc/pgx/v5"
)

// schemasQuery lists the user schemas, including empty ones, so that a fix
// generating a name can see what is taken.
const schemasQuery = `
SELECT n.nspname::text
FROM pg_catalog.pg_namespace n
WHERE ` + systemSchemaSQL + `
ORDER BY 1`

func scanSchemas(rows pgx.Rows, b *builder) error {
	var name string
	if err := rows.Scan(&name); err != nil {
		return err
	}
	if b.filter.SchemaIncluded(name) {
		b.cat.AddSchema(name)
	}
	return nil
}

// searchPathQuery is the session's effective search path (existing schemas
// only, without pg_catalog), which resolves unqualified names the way the
// server would.
const searchPathQuery = `SELECT pg_catalog.current_schemas(false)::text[]`

func scanSearchPath(rows pgx.Rows, b *builder) error {
	if err := rows.Scan(&b.cat.SearchPath); err != nil {
		return err
	}
	// current_schemas leaves out schemas the role may not use, which for a
	// role that can only connect is all of them; names then resolve the
	// way a fresh database's default search path would.
	if len(b.cat.SearchPath) == 0 {
		b.cat.SearchPath = []string{"public"}
	}
	return nil
}
