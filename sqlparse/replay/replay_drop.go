package replay

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
)

// rename is ALTER TABLE / INDEX ... RENAME [COLUMN | CONSTRAINT] ... TO.
func (r *Replayer) rename(rs *pg.RenameStmt) {
	switch rs.RenameType {
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_MATVIEW:
		r.renameTable(rs)
	case pg.ObjectType_OBJECT_INDEX:
		r.renameIndex(rs.Relation, rs.Newname, rs.MissingOk)
	case pg.ObjectType_OBJECT_COLUMN:
		if t := r.table(rs.Relation, rs.MissingOk); t != nil {
			r.renameColumn(t, rs.Subname, rs.Newname)
		}
	case pg.ObjectType_OBJECT_TABCONSTRAINT:
		if t := r.table(rs.Relation, rs.MissingOk); t != nil {
			r.renameConstraint(t, rs.Subname, rs.Newname)
		}
	case pg.ObjectType_OBJECT_TYPE:
		r.renameEnum(rs)
	}
}

func (r *Replayer) renameTable(rs *pg.RenameStmt) {
	t := r.resolveTable(rs.Relation.Schemaname, rs.Relation.Relname)
	if t == nil {
		// ALTER TABLE also renames an index.
		if _, ix := r.findIndex(rs.Relation.Schemaname, rs.Relation.Relname); ix != nil {
			r.renameIndex(rs.Relation, rs.Newname, rs.MissingOk)
			return
		}
		if !rs.MissingOk {
			r.note("42P01", "relation %q does not exist", displayName(rs.Relation.Schemaname, rs.Relation.Relname))
		}
		return
	}
	s := r.schemaOf(t)
	if s.RelationExists(rs.Newname) {
		r.note("42P07", "relation %q already exists", rs.Newname)
		return
	}
	old := t.Name
	r.cat.RenameRelation(t, rs.Newname)
	r.record(catalog.ChangeRenameTable, t, t.Name, old, nil)
}

// renameIndex renames an index and, with it, the constraint it backs.
func (r *Replayer) renameIndex(rv *pg.RangeVar, newName string, missingOk bool) {
	t, ix := r.findIndex(rv.Schemaname, rv.Relname)
	if ix == nil {
		if !missingOk {
			r.note("42P01", "relation %q does not exist", displayName(rv.Schemaname, rv.Relname))
		}
		return
	}
	s := r.schemaOf(t)
	if s.RelationExists(newName) {
		r.note("42P07", "relation %q already exists", newName)
		return
	}
	r.setIndexName(t, ix, newName)
}

func (r *Replayer) setIndexName(t *catalog.Table, ix *catalog.Index, newName string) {
	old := ix.Name
	oldQualified := t.Schema + "." + old
	r.cat.RenameIndex(t, ix, newName)
	ix.RenamedAt = r.pos
	for _, p := range r.partitions(t) {
		for _, own := range p.Indexes {
			if own.ParentIndex == oldQualified {
				own.ParentIndex = t.Schema + "." + newName
			}
		}
	}
	r.record(catalog.ChangeRenameIndex, t, newName, old, ix)
}

func (r *Replayer) renameConstraint(t *catalog.Table, old, newName string) {
	if r.cat.RenameConstraint(t, old, newName) {
		return
	}
	for _, ix := range t.Indexes {
		if ix.Constraint == old {
			r.setIndexName(t, ix, newName)
			return
		}
	}
	r.note("42704", "constraint %q of relation %q does not exist", old, t.Name)
}

// renameColumn renames the column everywhere it is used: key parts,
// INCLUDE lists, predicates and CHECKs.
func (r *Replayer) renameColumn(t *catalog.Table, old, newName string) {
	c := r.column(t, old)
	if c == nil {
		return
	}
	if t.Column(newName) != nil {
		r.note("42701", "column %q of relation %q already exists", newName, t.Name)
		return
	}
	for _, target := range r.withChildren(t, true) {
		if target.Column(old) != nil {
			r.cat.RenameColumn(target, old, newName)
		}
	}
	r.record(catalog.ChangeRenameColumn, t, newName, old, nil)
}

// drop is DROP TABLE / INDEX / SCHEMA / DOMAIN.
func (r *Replayer) drop(ds *pg.DropStmt) {
	if ds.Concurrent && r.inBody > 0 {
		r.note("25001", "DROP INDEX CONCURRENTLY cannot be executed from a function")
		return
	}
	for _, obj := range ds.Objects {
		var parts []string
		if l := obj.GetList(); l != nil {
			parts = nameList(l.Items)
		} else if s := obj.GetString_(); s != nil {
			parts = []string{s.GetSval()}
		} else if tn := obj.GetTypeName(); tn != nil {
			parts = nameList(tn.Names)
		}
		schema, name := splitQualified(parts)
		cascade := ds.Behavior == pg.DropBehavior_DROP_CASCADE
		switch ds.RemoveType {
		case pg.ObjectType_OBJECT_TABLE:
			r.dropTable(schema, name, ds.MissingOk, cascade)
		case pg.ObjectType_OBJECT_MATVIEW:
			r.dropMaterializedView(schema, name, ds.MissingOk)
		case pg.ObjectType_OBJECT_INDEX:
			r.dropIndex(schema, name, ds.MissingOk, cascade)
		case pg.ObjectType_OBJECT_SCHEMA:
			r.dropSchema(name, ds.MissingOk, cascade)
		case pg.ObjectType_OBJECT_DOMAIN:
			if r.dropDomainColumns(schema, name, cascade) {
				r.dropDomain(schema, name, ds.MissingOk)
			}
		case pg.ObjectType_OBJECT_TYPE:
			r.dropType(schema, name, ds.MissingOk, cascade)
		case pg.ObjectType_OBJECT_SEQUENCE:
			r.dropSequence(schema, name, ds.MissingOk)
		}
	}
}

func (r *Replayer) dropTable(schema, name string, missingOk, cascade bool) {
	t := r.cat.ResolveTable(schema, name)
	if t == nil && !missingOk {
		t = r.runnerTable(schema, name)
	}
	if t == nil {
		if !missingOk {
			r.note("42P01", "table %q does not exist", displayName(schema, name))
		}
		return
	}
	if t.Kind == catalog.MaterializedView {
		r.note("42809", "%q is not a table", t.Name)
		return
	}
	if refs, _ := r.cat.ReferencingKeys(t, ""); len(refs) > 0 && !cascade && !r.droppingTogether(refs, t) {
		r.note("2BP01", "cannot drop table %s because other objects depend on it", t.Name)
		return
	}
	for _, c := range r.children(t) {
		if c.PartitionOf == t.QualifiedName() {
			r.dropTable(c.Schema, c.Name, true, cascade)
			continue
		}
		if !cascade {
			r.note("2BP01", "cannot drop table %s because other objects depend on it", t.Name)
			return
		}
		// An inheritance child depends on each of its parents.
		r.dropTable(c.Schema, c.Name, true, cascade)
	}
	r.removeTable(t)
}

// droppingTogether reports whether every table in refs is a partition of
// t, whose keys go with it.
func (r *Replayer) droppingTogether(refs []*catalog.Table, t *catalog.Table) bool {
	for _, ref := range refs {
		if ref.PartitionOf != t.QualifiedName() {
			return false
		}
	}
	return true
}

func (r *Replayer) removeTable(t *catalog.Table) {
	r.dropReferencingKeys(t, "")
	for _, ix := range t.Indexes {
		r.recordIndexDrop(t, ix)
	}
	r.cat.DropTable(t)
	r.record(catalog.ChangeDropTable, t, t.Name, "", nil)
}

// dropIndex is DROP INDEX. An index that backs a constraint is refused
// even with CASCADE (the constraint is dropped instead); the foreign keys
// that depend on it refuse the drop without CASCADE and go with it.
func (r *Replayer) dropIndex(schema, name string, missingOk, cascade bool) {
	t, ix := r.findIndex(schema, name)
	if ix == nil {
		if !missingOk {
			r.note("42704", "index %q does not exist", displayName(schema, name))
		}
		return
	}
	if ix.Constraint != "" {
		r.note("2BP01", "cannot drop index %s because constraint %s on table %s requires it", ix.Name, ix.Constraint, t.Name)
		return
	}
	if ix.ParentIndex != "" {
		r.note("2BP01", "cannot drop index %s because index %s requires it", ix.Name, ix.ParentIndex)
		return
	}
	if !r.dropKeysUsingIndex(t, ix, "index "+ix.Name, cascade) {
		return
	}
	r.cat.DropIndex(t, ix)
	r.recordIndexDrop(t, ix)
	r.dropPartitionCopies(t, ix)
}

func (r *Replayer) dropSchema(name string, missingOk, cascade bool) {
	s := r.cat.Schema(name)
	if s == nil {
		if !missingOk {
			r.note("3F000", "schema %q does not exist", name)
		}
		return
	}
	if !cascade && !schemaIsEmpty(s) {
		r.note("2BP01", "cannot drop schema %s because other objects depend on it", name)
		return
	}
	r.dropSchemaContents(s)
	r.cat.DropSchema(name)
}

func (r *Replayer) dropDomain(schema, name string, missingOk bool) {
	d := r.cat.ResolveDomain(schema, name)
	if d == nil {
		if !missingOk {
			r.note("42704", "type %q does not exist", displayName(schema, name))
		}
		return
	}
	delete(r.cat.Schema(d.Schema).Domains, d.Name)
}

// setSchema is ALTER TABLE ... SET SCHEMA; the table's indexes move with it.
func (r *Replayer) setSchema(as *pg.AlterObjectSchemaStmt) {
	if as.ObjectType != pg.ObjectType_OBJECT_TABLE && as.ObjectType != pg.ObjectType_OBJECT_MATVIEW {
		return
	}
	t := r.table(as.Relation, as.MissingOk)
	if t == nil {
		return
	}
	dst := r.cat.Schema(as.Newschema)
	if dst == nil {
		r.note("3F000", "schema %q does not exist", as.Newschema)
		return
	}
	if dst.RelationExists(t.Name) {
		r.note("42P07", "relation %q already exists in schema %q", t.Name, dst.Name)
		return
	}
	old := t.QualifiedName()
	r.cat.MoveTable(t, dst)
	r.record(catalog.ChangeRenameTable, t, t.Name, old, nil)
}

func (r *Replayer) dropSequence(schema, name string, missingOk bool) {
	schemas := r.cat.SearchPath
	if schema != "" {
		schemas = []string{schema}
	}
	for _, sn := range schemas {
		if s := r.cat.Schemas[sn]; s != nil {
			if s.DropSequence(name) {
				return
			}
		}
	}
	if !missingOk {
		r.note("42P01", "sequence %q does not exist", displayName(schema, name))
	}
}
