package inspect

import (
	"fmt"
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

// FilterMiss is a --schema or --table pattern that matched nothing in the
// database: almost always a typo, and auditing nothing proves nothing.
type FilterMiss struct {
	Flag    string // "schema" or "table"
	Pattern string
	// Known are the names the pattern could have matched: the user schemas
	// for a schema pattern, the tables of the audited schemas for a table
	// pattern (at most maxKnown of them).
	Known []string
	More  int // names not in Known
}

const maxKnown = 10

func (m FilterMiss) Error() string {
	msg := fmt.Sprintf("--%s %s matches no %s", m.Flag, m.Pattern, m.Flag)
	where := "the database has"
	if m.Flag == "table" {
		msg += " in the schemas audited"
		where = "they hold"
	}
	if len(m.Known) == 0 {
		return msg + "; " + where + " none"
	}
	list := strings.Join(m.Known, ", ")
	if m.More > 0 {
		list += fmt.Sprintf(" and %d more", m.More)
	}
	return fmt.Sprintf("%s; %s %s", msg, where, list)
}

// filterUse is a Filter being applied: it remembers which patterns matched
// something, and the names the others could have matched.
type filterUse struct {
	Filter
	schemaHit, tableHit []bool
	schemas, tables     []string
}

func newFilterUse(f Filter) *filterUse {
	return &filterUse{Filter: f, schemaHit: make([]bool, len(f.Schemas)), tableHit: make([]bool, len(f.Tables))}
}

// SchemaIncluded is Filter.SchemaIncluded, noting the patterns that match.
func (u *filterUse) SchemaIncluded(schema string) bool {
	if SystemSchema(schema) {
		return false
	}
	u.schemas = append(u.schemas, schema)
	for i, p := range u.Schemas {
		if ok, _ := path.Match(p, schema); ok {
			u.schemaHit[i] = true
		}
	}
	return u.Filter.SchemaIncluded(schema)
}

// TableIncluded is Filter.TableIncluded, noting the patterns that match a
// table of an included schema.
func (u *filterUse) TableIncluded(schema, table string) bool {
	if !u.Filter.SchemaIncluded(schema) {
		return false
	}
	u.tables = append(u.tables, schema+"."+table)
	for i, p := range u.Tables {
		name := table
		if strings.Contains(p, ".") {
			name = schema + "." + table
		}
		if ok, _ := path.Match(p, name); ok {
			u.tableHit[i] = true
		}
	}
	return u.Filter.TableIncluded(schema, table)
}

// misses lists the patterns that matched nothing.
func (u *filterUse) misses() []FilterMiss {
	var out []FilterMiss
	for i, p := range u.Schemas {
		if !u.schemaHit[i] {
			out = append(out, missOf("schema", p, u.schemas))
		}
	}
	for i, p := range u.Tables {
		if !u.tableHit[i] {
			out = append(out, missOf("table", p, u.tables))
		}
	}
	return out
}

func missOf(flag, pattern string, known []string) FilterMiss {
	m := FilterMiss{Flag: flag, Pattern: pattern, Known: known}
	if len(known) > maxKnown {
		m.Known, m.More = known[:maxKnown], len(known)-maxKnown
	}
	return m
}
