package sqlparse

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
)

// Foreign keys and enum types are modelled for what they say about a key
// part: a column that references a parent row scopes the row, and a column
// of an enum type is a discriminator. The rules read both as structure;
// replay keeps them as the server would, names included, so that DROP and
// RENAME CONSTRAINT find them.

// addForeignKey records a FOREIGN KEY clause: a column constraint
// (REFERENCES, with column set), a table constraint, or ALTER TABLE ... ADD.
func (r *Replayer) addForeignKey(t *catalog.Table, c *pg.Constraint, column string) {
	cols := nameList(c.FkAttrs)
	if len(cols) == 0 && column != "" {
		cols = []string{column}
	}
	if len(cols) == 0 {
		return
	}
	for _, col := range cols {
		if r.column(t, col) == nil {
			return
		}
	}
	refName := ""
	if rv := c.Pktable; rv != nil {
		ref := r.cat.ResolveTable(rv.Schemaname, rv.Relname)
		if ref == nil {
			r.note("42P01", "relation %q does not exist", displayName(rv.Schemaname, rv.Relname))
			return
		}
		refName = ref.QualifiedName()
	}
	name := c.Conname
	if name == "" {
		name = chooseConstraintName(r.schemaOf(t), t.Name, indexNameAddition(cols), "fkey")
	} else if t.Check(name) != nil || tableHasConstraint(t, name) {
		r.note("42710", "constraint %q for relation %q already exists", name, t.Name)
		return
	}
	t.ForeignKeys = append(t.ForeignKeys, &catalog.ForeignKey{Name: name, Columns: cols, RefTable: refName, Pos: r.at(c.Location)})
	r.cloneOntoPartitions(t)
}

// cloneOntoPartitions gives every partition below t the foreign keys of t.
func (r *Replayer) cloneOntoPartitions(t *catalog.Table) {
	for _, p := range r.partitions(t) {
		cloneForeignKeys(p, t)
		r.cloneOntoPartitions(p)
	}
}

// foreignKey finds a foreign key of t by name.
func foreignKey(t *catalog.Table, name string) (int, *catalog.ForeignKey) {
	for i, fk := range t.ForeignKeys {
		if fk.Name == name {
			return i, fk
		}
	}
	return -1, nil
}

// cloneForeignKeys gives a partition its parent's foreign keys, as the
// server does when it is created or attached.
func cloneForeignKeys(child, parent *catalog.Table) {
	for _, fk := range parent.ForeignKeys {
		if _, have := foreignKey(child, fk.Name); have == nil {
			cp := *fk
			cp.Columns = append([]string(nil), fk.Columns...)
			child.ForeignKeys = append(child.ForeignKeys, &cp)
		}
	}
}

// dropForeignKeysOn removes the foreign keys that use column: dropping a
// column drops every constraint on it.
func dropForeignKeysOn(t *catalog.Table, column string) {
	var keep []*catalog.ForeignKey
	for _, fk := range t.ForeignKeys {
		if !contains(fk.Columns, column) {
			keep = append(keep, fk)
		}
	}
	t.ForeignKeys = keep
}

// dropForeignKeysTo removes every foreign key that references table (a
// qualified name), as DROP TABLE ... CASCADE does.
func (r *Replayer) dropForeignKeysTo(table string) {
	for _, t := range r.cat.Tables() {
		var keep []*catalog.ForeignKey
		for _, fk := range t.ForeignKeys {
			if fk.RefTable != table {
				keep = append(keep, fk)
			}
		}
		t.ForeignKeys = keep
	}
}

// createEnum records CREATE TYPE ... AS ENUM.
func (r *Replayer) createEnum(ce *pg.CreateEnumStmt) {
	schema, name := splitQualified(nameList(ce.TypeName))
	s := r.creationSchema(schema)
	if s == nil {
		return
	}
	if s.Enums[name] != nil || s.Domains[name] != nil {
		r.note("42710", "type %q already exists", name)
		return
	}
	if s.Enums == nil {
		s.Enums = map[string]*catalog.Enum{}
	}
	s.Enums[name] = &catalog.Enum{Schema: s.Name, Name: name, Labels: nameList(ce.Vals), Pos: r.pos}
}

// enumOf is the enum type of a column, nil when its type is not one.
func (r *Replayer) enumOf(c *catalog.Column) *catalog.Enum {
	if !c.Enum {
		return nil
	}
	schema, name := splitTypeName(c.Type)
	return r.cat.ResolveEnum(schema, name)
}

// dropEnum is DROP TYPE on an enum: the server refuses while a column has
// the type (2BP01), and with CASCADE drops those columns.
func (r *Replayer) dropEnum(e *catalog.Enum, cascade bool) {
	for _, t := range r.cat.Tables() {
		for _, c := range append(t.Columns[:0:0], t.Columns...) {
			if t.Column(c.Name) == nil || r.enumOf(c) != e {
				continue
			}
			if !cascade {
				r.note("2BP01", "cannot drop type %s because column %s of table %s depends on it", e.Name, c.Name, t.Name)
				return
			}
			r.dropColumn(t, c.Name, true, true)
		}
	}
	delete(r.cat.Schema(e.Schema).Enums, e.Name)
}

// dropType is DROP TYPE: an enum, or a domain (which DROP TYPE drops too).
func (r *Replayer) dropType(schema, name string, missingOk, cascade bool) {
	if e := r.cat.ResolveEnum(schema, name); e != nil {
		r.dropEnum(e, cascade)
		return
	}
	if r.cat.ResolveDomain(schema, name) != nil {
		if r.dropDomainColumns(schema, name, cascade) {
			r.dropDomain(schema, name, missingOk)
		}
		return
	}
	// Other types (composite, range, base) are not modelled: nothing to do,
	// and no note, since replay cannot tell whether one exists.
}
