package replay

import (
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// What DROP ... CASCADE takes with it, as PostgreSQL 15 does (checked
// statement by statement against the server in replay_cascade_test.go):
//
//   - DROP INDEX: the foreign keys that depend on the index (the one each
//     key recorded when it was added); without CASCADE they refuse it. An
//     index that backs a constraint is refused either way.
//   - ALTER TABLE ... DROP CONSTRAINT on a primary key or unique
//     constraint: likewise the foreign keys that depend on its index.
//   - DROP TABLE: other tables' foreign keys to it, its partitions and its
//     inheritance children (in any schema).
//   - ALTER TABLE ... DROP COLUMN: the indexes, CHECKs and foreign keys on
//     the column go even without CASCADE; other tables' keys to it and the
//     generated columns computed from it need CASCADE.
//   - DROP TYPE / DROP DOMAIN: the columns of that type, arrays of it
//     included, and the domains over it with their columns.
//   - DROP SCHEMA: its tables (with the above), enums, domains and
//     sequences, and the columns of other schemas' tables typed with them.
//
// Views, functions, triggers and policies are not modelled, so what
// CASCADE does to them is not either; a view that would refuse a drop
// without CASCADE is not seen.

// typeBase is the schema and name of a column's or domain's type as
// recorded, without array brackets or type modifiers.
func typeBase(typ string) (schema, name string) {
	if i := strings.IndexAny(typ, "[("); i >= 0 {
		typ = strings.TrimSpace(typ[:i])
	}
	return splitTypeName(typ)
}

// dropTypeDependents handles what depends on a type that is being dropped:
// the columns of that type and the domains over it. uses reports whether a
// type name resolves to it. Without CASCADE the first dependent refuses the
// drop (2BP01) before anything changes, and it reports false.
func (r *Replayer) dropTypeDependents(typeName string, uses func(schema, name string) bool, cascade bool) bool {
	for _, t := range r.cat.Tables() {
		for _, c := range slices.Clone(t.Columns) {
			if t.Column(c.Name) == nil || !uses(typeBase(c.Type)) {
				continue
			}
			if !cascade {
				r.note("2BP01", "cannot drop type %s because column %s of table %s depends on it", typeName, c.Name, t.Name)
				return false
			}
			r.dropColumn(t, c.Name, true, true, true)
		}
	}
	for _, sn := range r.cat.SchemaNames() {
		s := r.cat.Schema(sn)
		if s == nil {
			continue
		}
		for _, dn := range sortedKeys(s.Domains) {
			d := s.Domains[dn]
			if d == nil || !uses(typeBase(d.Type)) {
				continue
			}
			if !cascade {
				r.note("2BP01", "cannot drop type %s because type %s depends on it", typeName, d.Name)
				return false
			}
			r.dropTypeDependents(d.Name, func(schema, name string) bool { return r.cat.ResolveDomain(schema, name) == d }, true)
			delete(s.Domains, dn)
		}
	}
	return true
}

// dropDomainColumns handles the columns typed with a domain that DROP DOMAIN
// removes: with CASCADE PostgreSQL drops them, and with them every index and
// CHECK that uses them, which is how a unique index can disappear without
// being named. Without CASCADE the server refuses (2BP01) and the domain
// stays. It reports whether the domain may go.
func (r *Replayer) dropDomainColumns(schema, name string, cascade bool) bool {
	d := r.cat.ResolveDomain(schema, name)
	if d == nil {
		return true
	}
	return r.dropTypeDependents(d.Name, func(s, n string) bool { return r.cat.ResolveDomain(s, n) == d }, cascade)
}

// dropSchemaContents is DROP SCHEMA ... CASCADE: the tables first (their
// keys, partitions and children elsewhere with them), then the types with
// the columns of other schemas that use them.
func (r *Replayer) dropSchemaContents(s *catalog.Schema) {
	for _, tn := range sortedKeys(s.Tables) {
		if t := s.Tables[tn]; t != nil {
			if t.Kind == catalog.MaterializedView {
				r.dropMaterializedView(s.Name, tn, true)
				continue
			}
			r.dropTable(s.Name, tn, true, true)
		}
	}
	for _, en := range sortedKeys(s.Enums) {
		if e := s.Enums[en]; e != nil {
			r.dropEnum(e, true)
		}
	}
	for _, dn := range sortedKeys(s.Domains) {
		if d := s.Domains[dn]; d != nil {
			r.dropTypeDependents(d.Name, func(schema, name string) bool { return r.cat.ResolveDomain(schema, name) == d }, true)
			delete(s.Domains, dn)
		}
	}
}

// schemaIsEmpty reports whether a schema holds nothing replay models.
func schemaIsEmpty(s *catalog.Schema) bool {
	return len(s.Tables) == 0 && len(s.Domains) == 0 && len(s.Enums) == 0 && len(s.Sequences) == 0
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
