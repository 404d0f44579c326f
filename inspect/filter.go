package inspect

import (
	"path"
	"strings"
)

// Filter narrows what is audited. Empty lists match everything. System
// schemas are never audited, whatever the filter says.
type Filter struct {
	// Schemas are glob patterns (path.Match syntax) over schema names.
	Schemas []string
	// Tables are glob patterns over table names; a pattern with a dot is
	// matched against schema.table instead.
	Tables []string
}

// Validate reports the first malformed pattern.
func (f Filter) Validate() error {
	for _, p := range append(append([]string(nil), f.Schemas...), f.Tables...) {
		if _, err := path.Match(p, ""); err != nil {
			return &ConfigError{Reason: "bad pattern " + strings.TrimSpace(p) + ": " + err.Error()}
		}
	}
	return nil
}

// SystemSchema reports whether a schema belongs to PostgreSQL itself:
// pg_catalog, information_schema, pg_toast and the per-session temporary
// schemas. These are never audited.
func SystemSchema(name string) bool {
	switch name {
	case "pg_catalog", "information_schema", "pg_toast":
		return true
	}
	return strings.HasPrefix(name, "pg_temp_") || strings.HasPrefix(name, "pg_toast_temp_")
}

// systemSchemaSQL is the same test in SQL, so the catalog queries do not
// even fetch system rows. n is the pg_namespace alias.
const systemSchemaSQL = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'pg\_toast\_temp\_%'`

// SchemaIncluded reports whether the filter lets the schema through.
func (f Filter) SchemaIncluded(schema string) bool {
	return !SystemSchema(schema) && matchAny(f.Schemas, schema)
}

// TableIncluded reports whether the filter lets the table through.
func (f Filter) TableIncluded(schema, table string) bool {
	if !f.SchemaIncluded(schema) {
		return false
	}
	if len(f.Tables) == 0 {
		return true
	}
	for _, p := range f.Tables {
		name := table
		if strings.Contains(p, ".") {
			name = schema + "." + table
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func matchAny(patterns []string, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
