package replay

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
)

// Foreign keys and enum types are modelled for what they say about a key
// part: a column that references a parent row scopes the row, and a column
// of an enum type is a discriminator. The rules read both as structure.
//
// Foreign keys are followed as the server keeps them: by name (the names
// PostgreSQL generates, {table}_{columns}_fkey, DROP, RENAME and VALIDATE
// CONSTRAINT), with the columns at both ends, their deferrability and
// whether they were validated, copied onto partitions, and in the way of
// dropping a table, a column or the unique index they refer to without
// CASCADE; with CASCADE they go with it. What replay leaves out: ON DELETE
// actions.

// addForeignKey adds a FOREIGN KEY written in CREATE TABLE (inCreate), in
// ALTER TABLE ADD, or in an added column's definition (column is then its
// name). inh is false for ALTER TABLE ONLY.
func (r *Replayer) addForeignKey(t *catalog.Table, c *pg.Constraint, column string, inCreate, inh bool) {
	cols := nameList(c.FkAttrs)
	if column != "" {
		cols = []string{column}
	}
	for _, col := range cols {
		if t.Column(col) == nil {
			r.note("42703", "column %q referenced in foreign key constraint does not exist", col)
			return
		}
	}
	ref := r.table(c.Pktable, false)
	if ref == nil {
		return
	}
	if ref.Kind == catalog.MaterializedView {
		r.note("42809", "referenced relation %q is not a table", ref.Name)
		return
	}
	refCols, refIndex, ok := r.referencedKey(ref, nameList(c.PkAttrs))
	if !ok {
		return
	}
	if len(cols) != len(refCols) {
		r.note("42830", "number of referencing and referenced columns for foreign key disagree")
		return
	}
	if t.Kind == catalog.Partitioned && !inCreate {
		switch {
		case !inh:
			r.note("42809", "cannot use ONLY for foreign key on partitioned table %q referencing relation %q", t.Name, ref.Name)
			return
		case c.SkipValidation:
			r.note("42809", "cannot add NOT VALID foreign key on partitioned table %q referencing relation %q", t.Name, ref.Name)
			return
		}
	}
	name := c.Conname
	if name == "" {
		name = r.schemaOf(t).ChooseConstraintName(t.Name, catalog.IndexNameAddition(cols), "fkey")
	} else if t.Check(name) != nil || tableHasConstraint(t, name) {
		r.note("42710", "constraint %q for relation %q already exists", name, t.Name)
		return
	}
	fk := &catalog.ForeignKey{
		Name:              name,
		Columns:           cols,
		RefTable:          ref.QualifiedName(),
		RefColumns:        refCols,
		Deferrable:        c.Deferrable,
		InitiallyDeferred: c.Initdeferred,
		Validated:         inCreate || !c.SkipValidation,
		OnDelete:          deleteAction(c.FkDelAction),
		Pos:               r.at(c.Location),
		RefIndex:          refIndex,
	}
	r.cat.AddForeignKey(t, fk)
	for _, p := range r.partitions(t) {
		r.cloneForeignKey(p, fk)
	}
}

// referencedKey checks the referenced columns the way the server does: a
// key without columns names the primary key, one with columns needs a
// unique, immediate, non-partial index over exactly those columns, the
// first created of them (the server takes the lowest OID). It returns the
// columns and the index the key depends on.
func (r *Replayer) referencedKey(ref *catalog.Table, cols []string) ([]string, *catalog.Index, bool) {
	if len(cols) == 0 {
		for _, ix := range ref.Indexes {
			if ix.Primary {
				return keyColumns(ix), ix, true
			}
		}
		r.note("42704", "there is no primary key for referenced table %q", ref.Name)
		return nil, nil, false
	}
	for _, col := range cols {
		if ref.Column(col) == nil {
			r.note("42703", "column %q referenced in foreign key constraint does not exist", col)
			return nil, nil, false
		}
	}
	if ix := matchingKeyIndex(ref, cols); ix != nil {
		return cols, ix, true
	}
	r.note("42830", "there is no unique constraint matching given keys for referenced table %q", ref.Name)
	return nil, nil, false
}

// matchingKeyIndex is the first index of ref a foreign key over cols can
// reference.
func matchingKeyIndex(ref *catalog.Table, cols []string) *catalog.Index {
	for _, ix := range ref.Indexes {
		if (ix.Unique || ix.Primary) && !ix.Deferrable && ix.Predicate == nil && len(keyColumns(ix)) == len(ix.Parts) && sameSet(keyColumns(ix), cols) {
			return ix
		}
	}
	return nil
}

// keysUsingIndex are the foreign keys (of any table) that depend on ix, an
// index of t; for a key whose index is not known (a catalog inspect read),
// the first matching index counts.
func (r *Replayer) keysUsingIndex(t *catalog.Table, ix *catalog.Index) ([]*catalog.Table, []*catalog.ForeignKey) {
	var tables []*catalog.Table
	var keys []*catalog.ForeignKey
	refs, fks := r.cat.ReferencingKeys(t, "")
	for _, fk := range t.ForeignKeys { // a table's keys to itself
		if fk.RefTable == t.QualifiedName() {
			refs, fks = append(refs, t), append(fks, fk)
		}
	}
	for i, fk := range fks {
		used := fk.RefIndex
		if used == nil || !slices.Contains(t.Indexes, used) {
			used = matchingKeyIndex(t, fk.RefColumns)
		}
		if used == ix {
			tables, keys = append(tables, refs[i]), append(keys, fk)
		}
	}
	return tables, keys
}

// dropKeysUsingIndex is the CASCADE of dropping ix: the keys that depend on
// it go, with their partitions' copies. Without cascade it notes the
// refusal and reports false when there are any.
func (r *Replayer) dropKeysUsingIndex(t *catalog.Table, ix *catalog.Index, what string, cascade bool) bool {
	tables, keys := r.keysUsingIndex(t, ix)
	if len(keys) == 0 {
		return true
	}
	if !cascade {
		r.note("2BP01", "cannot drop %s because other objects depend on it", what)
		return false
	}
	for i, fk := range keys {
		if tables[i].ForeignKey(fk.Name) == fk {
			r.dropForeignKey(tables[i], fk.Name)
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}

// cloneForeignKey gives partition p the parent's foreign key, as creating
// or attaching a partition and adding a key to a partitioned table do: an
// equal key p already has is adopted, otherwise the copy takes the parent's
// name when p has no constraint of that name.
func (r *Replayer) cloneForeignKey(p *catalog.Table, fk *catalog.ForeignKey) {
	for _, own := range p.ForeignKeys {
		if slices.Equal(own.Columns, fk.Columns) && own.RefTable == fk.RefTable && slices.Equal(own.RefColumns, fk.RefColumns) {
			return
		}
	}
	cp := *fk
	cp.Columns = slices.Clone(fk.Columns)
	cp.RefColumns = slices.Clone(fk.RefColumns)
	cp.Pos = r.pos
	if p.Check(cp.Name) != nil || tableHasConstraint(p, cp.Name) {
		cp.Name = r.schemaOf(p).ChooseConstraintName(p.Name, catalog.IndexNameAddition(cp.Columns), "fkey")
	}
	r.cat.AddForeignKey(p, &cp)
	for _, sub := range r.partitions(p) {
		r.cloneForeignKey(sub, &cp)
	}
}

// cloneParentForeignKeys gives a new or attached partition each key of its
// parent.
func (r *Replayer) cloneParentForeignKeys(p, parent *catalog.Table) {
	for _, fk := range parent.ForeignKeys {
		r.cloneForeignKey(p, fk)
	}
}

// dropForeignKey removes the key called name from t and its copies from
// t's partitions; it reports whether t had one.
func (r *Replayer) dropForeignKey(t *catalog.Table, name string) bool {
	fk := t.ForeignKey(name)
	if fk == nil {
		return false
	}
	r.cat.DropForeignKey(t, fk)
	for _, p := range r.partitions(t) {
		for _, own := range p.ForeignKeys {
			if slices.Equal(own.Columns, fk.Columns) && own.RefTable == fk.RefTable {
				r.dropForeignKey(p, own.Name)
				break
			}
		}
	}
	return true
}

// dropReferencingKeys is the CASCADE of dropping t (or its column col): the
// keys that refer to it go.
func (r *Replayer) dropReferencingKeys(t *catalog.Table, col string) {
	tables, keys := r.cat.ReferencingKeys(t, col)
	for i, fk := range keys {
		r.cat.DropForeignKey(tables[i], fk)
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

// alterEnum is ALTER TYPE ... ADD VALUE (before or after a neighbour, or
// last) and RENAME VALUE: the labels a witness row may take.
func (r *Replayer) alterEnum(ae *pg.AlterEnumStmt) {
	e := r.cat.ResolveEnum(splitQualified(nameList(ae.TypeName)))
	if e == nil {
		return
	}
	if ae.OldVal != "" {
		if i := slices.Index(e.Labels, ae.OldVal); i >= 0 {
			e.Labels[i] = ae.NewVal
		}
		return
	}
	if slices.Contains(e.Labels, ae.NewVal) {
		return
	}
	at := len(e.Labels)
	if i := slices.Index(e.Labels, ae.NewValNeighbor); i >= 0 && ae.NewValNeighbor != "" {
		at = i
		if ae.NewValIsAfter {
			at = i + 1
		}
	}
	e.Labels = slices.Insert(e.Labels, at, ae.NewVal)
}

// renameEnum is ALTER TYPE ... RENAME TO on an enum: its columns follow.
// Other types are not modelled.
func (r *Replayer) renameEnum(rs *pg.RenameStmt) {
	schema, name := splitQualified(nameList(rs.Object.GetList().GetItems()))
	e := r.cat.ResolveEnum(schema, name)
	if e == nil {
		return
	}
	s := r.cat.Schema(e.Schema)
	if s.Enums[rs.Newname] != nil || s.Domains[rs.Newname] != nil {
		r.note("42710", "type %q already exists", rs.Newname)
		return
	}
	for _, t := range r.cat.Relations() {
		for _, c := range t.Columns {
			if r.enumOf(c) == e {
				if ts, _ := splitTypeName(c.Type); ts != "" {
					c.Type = ts + "." + rs.Newname
				} else {
					c.Type = rs.Newname
				}
			}
		}
	}
	delete(s.Enums, e.Name)
	e.Name = rs.Newname
	s.Enums[e.Name] = e
}

// enumOf is the enum type of a column, nil when its type is not one.
func (r *Replayer) enumOf(c *catalog.Column) *catalog.Enum {
	if !c.Enum {
		return nil
	}
	schema, name := splitTypeName(c.Type)
	return r.cat.ResolveEnum(schema, name)
}

// dropEnum is DROP TYPE on an enum: the server refuses while a column or a
// domain has the type (2BP01), and with CASCADE drops them.
func (r *Replayer) dropEnum(e *catalog.Enum, cascade bool) {
	if !r.dropTypeDependents(e.Name, func(schema, name string) bool { return r.cat.ResolveEnum(schema, name) == e }, cascade) {
		return
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

// deleteAction is the parser's ON DELETE action as pg_constraint stores it:
// "a" (no action) when none was written.
func deleteAction(a string) string {
	if a == "" || a == " " {
		return "a"
	}
	return a
}
