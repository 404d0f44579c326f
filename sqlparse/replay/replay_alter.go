package replay

import (
	"fmt"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
)

// alterTable applies each subcommand of ALTER TABLE (or ALTER INDEX) in
// order, as the server does.
func (r *Replayer) alterTable(at *pg.AlterTableStmt) {
	if at.Objtype == pg.ObjectType_OBJECT_INDEX {
		r.alterIndex(at)
		return
	}
	if at.Objtype != pg.ObjectType_OBJECT_TABLE {
		return
	}
	t := r.table(at.Relation, at.MissingOk)
	if t == nil {
		return
	}
	if t.Kind == catalog.MaterializedView {
		// ALTER TABLE reaches a materialized view only for what replay
		// does not model (owner, storage, statistics); the rest the
		// server refuses.
		if len(at.Cmds) > 0 && modelledAlter(at.Cmds[0].GetAlterTableCmd().GetSubtype()) {
			r.note("42809", "%q is a materialized view, which ALTER TABLE cannot change this way", t.Name)
		}
		return
	}
	inh := at.Relation.Inh
	for _, n := range at.Cmds {
		cmd := n.GetAlterTableCmd()
		if cmd == nil {
			continue
		}
		r.alterTableCmd(t, cmd, inh)
	}
}

// alterTableCmd is the switch over ALTER TABLE subcommands.
func (r *Replayer) alterTableCmd(t *catalog.Table, cmd *pg.AlterTableCmd, inh bool) {
	switch cmd.Subtype {
	case pg.AlterTableType_AT_AddColumn:
		r.addColumn(t, cmd.Def.GetColumnDef(), cmd.MissingOk, inh)
	case pg.AlterTableType_AT_DropColumn:
		r.dropColumn(t, cmd.Name, cmd.MissingOk, inh, cmd.Behavior == pg.DropBehavior_DROP_CASCADE)
	case pg.AlterTableType_AT_AlterColumnType:
		r.alterColumnType(t, cmd.Name, cmd.Def.GetColumnDef(), inh)
	case pg.AlterTableType_AT_SetNotNull:
		r.setNotNull(t, cmd.Name, inh)
	case pg.AlterTableType_AT_DropNotNull:
		r.dropNotNull(t, cmd.Name, inh)
	case pg.AlterTableType_AT_AddConstraint:
		r.addConstraint(t, cmd.Def.GetConstraint(), "", inh)
		r.inheritCheck(t, cmd.Def.GetConstraint(), inh)
	case pg.AlterTableType_AT_DropConstraint:
		for _, target := range r.withChildren(t, inh) {
			if target == t || target.Check(cmd.Name) != nil {
				r.dropConstraint(target, cmd.Name, cmd.MissingOk, cmd.Behavior == pg.DropBehavior_DROP_CASCADE)
			}
		}
	case pg.AlterTableType_AT_ValidateConstraint:
		// Validation reaches the children's CHECKs and the partitions'
		// copies of a foreign key, which carry the same name.
		for _, target := range r.withChildren(t, inh) {
			if target == t || target.Check(cmd.Name) != nil || target.ForeignKey(cmd.Name) != nil {
				r.validateConstraint(target, cmd.Name)
			}
		}
	case pg.AlterTableType_AT_DropExpression:
		for _, target := range r.withChildren(t, inh) {
			if c := target.Column(cmd.Name); c != nil {
				c.Generated, c.Generation = false, nil
			}
		}
	case pg.AlterTableType_AT_AttachPartition:
		r.attachPartition(t, cmd.Def.GetPartitionCmd())
	case pg.AlterTableType_AT_DetachPartition:
		r.detachPartition(t, cmd.Def.GetPartitionCmd())
	case pg.AlterTableType_AT_ColumnDefault:
		// SET DEFAULT has the expression, DROP DEFAULT none.
		for _, target := range r.withChildren(t, inh) {
			if c := target.Column(cmd.Name); c != nil {
				c.Default = ""
				if cmd.Def != nil {
					c.Default = runnableSQL(cmd.Def)
				}
			}
		}
	case pg.AlterTableType_AT_AddIdentity:
		if c := r.column(t, cmd.Name); c != nil {
			c.Identity, c.NotNull, c.NullableSince = true, true, catalog.Pos{}
		}
	case pg.AlterTableType_AT_DropIdentity:
		if c := r.column(t, cmd.Name); c != nil {
			c.Identity = false
		}
	case pg.AlterTableType_AT_AddInherit:
		if p := r.table(cmd.Def.GetRangeVar(), false); p != nil && !contains(t.Inherits, p.QualifiedName()) {
			t.Inherits = append(t.Inherits, p.QualifiedName())
		}
	case pg.AlterTableType_AT_DropInherit:
		if p := r.table(cmd.Def.GetRangeVar(), false); p != nil {
			t.Inherits = removeString(t.Inherits, p.QualifiedName())
		}
	}
}

// modelledAlter reports whether alterTableCmd changes the model for a
// subcommand kind.
func modelledAlter(t pg.AlterTableType) bool {
	switch t {
	case pg.AlterTableType_AT_AddColumn, pg.AlterTableType_AT_DropColumn, pg.AlterTableType_AT_AlterColumnType,
		pg.AlterTableType_AT_SetNotNull, pg.AlterTableType_AT_DropNotNull, pg.AlterTableType_AT_AddConstraint,
		pg.AlterTableType_AT_DropConstraint, pg.AlterTableType_AT_ValidateConstraint, pg.AlterTableType_AT_AttachPartition,
		pg.AlterTableType_AT_DetachPartition, pg.AlterTableType_AT_AddIdentity, pg.AlterTableType_AT_DropIdentity,
		pg.AlterTableType_AT_AddInherit, pg.AlterTableType_AT_DropInherit, pg.AlterTableType_AT_DropExpression:
		return true
	}
	return false
}

// column finds a column or notes 42703 the way the server words it.
func (r *Replayer) column(t *catalog.Table, name string) *catalog.Column {
	if c := t.Column(name); c != nil {
		return c
	}
	r.note("42703", "column %q of relation %q does not exist", name, t.Name)
	return nil
}

func (r *Replayer) addColumn(t *catalog.Table, cd *pg.ColumnDef, missingOk, inh bool) {
	if cd == nil {
		return
	}
	if t.Column(cd.Colname) != nil {
		if !missingOk {
			r.note("42701", "column %q of relation %q already exists", cd.Colname, t.Name)
		}
		return
	}
	def := &catalog.Column{Name: cd.Colname, Pos: r.at(cd.Location)}
	serial := false
	if cd.TypeName != nil {
		serial = r.setColumnType(def, cd.TypeName)
	}
	pending, ok := r.columnConstraints(def, cd.Constraints)
	if !ok {
		return
	}
	if serial || def.Identity {
		seq := r.ownSequence(t, def.Name)
		if serial {
			def.Default = serialDefault(seq)
		}
	}
	for _, target := range r.withChildren(t, inh) {
		if target.Column(cd.Colname) != nil {
			continue
		}
		col := *def
		if key := target.QualifiedName() + "." + col.Name; r.droppedNotNull[key] && !col.NotNull {
			col.NullableSince = r.pos
		}
		target.Columns = append(target.Columns, &col)
	}
	r.record(catalog.ChangeAddColumn, t, cd.Colname, "", nil)
	for _, p := range pending {
		r.addConstraint(t, p.c, p.column, inh)
	}
}

// dropColumn removes the column and, as PostgreSQL does, every index,
// CHECK and foreign key that uses it. Generated columns computed from it and
// other tables' foreign keys that refer to it depend on it: the server
// refuses without CASCADE and drops them with it.
func (r *Replayer) dropColumn(t *catalog.Table, name string, missingOk, inh, cascade bool) {
	if t.Column(name) == nil {
		if !missingOk {
			r.note("42703", "column %q of relation %q does not exist", name, t.Name)
		}
		return
	}
	generated := generatedFrom(t, name)
	refTables, _ := r.cat.ReferencingKeys(t, name)
	if !cascade && (len(generated) > 0 || len(refTables) > 0) {
		r.note("2BP01", "cannot drop column %s of table %s because other objects depend on it", name, t.Name)
		return
	}
	r.dropReferencingKeys(t, name)
	for _, g := range generated {
		r.dropColumn(t, g, true, inh, cascade)
	}
	for _, target := range r.withChildren(t, inh) {
		if target.Column(name) == nil {
			continue
		}
		r.dropIndexesUsing(target, name)
		for _, ck := range slices.Clone(target.Checks) {
			if contains(catalog.ColumnsOf(ck.Expr), name) {
				r.recordCheckDrop(target, ck)
				r.cat.DropCheck(target, ck)
			}
		}
		for _, fk := range slices.Clone(target.ForeignKeys) {
			if contains(fk.Columns, name) {
				r.cat.DropForeignKey(target, fk)
			}
		}
		if c := target.Column(name); c.NotNull {
			r.droppedNotNull[target.QualifiedName()+"."+name] = true
		}
		target.Columns = removeColumn(target.Columns, name)
		r.record(catalog.ChangeDropColumn, target, name, "", nil)
	}
}

// generatedFrom lists the generated columns of t computed from column col.
func generatedFrom(t *catalog.Table, col string) []string {
	var out []string
	for _, c := range t.Columns {
		if c.Generation != nil && contains(catalog.ColumnsOf(c.Generation), col) {
			out = append(out, c.Name)
		}
	}
	return out
}

func (r *Replayer) dropIndexesUsing(t *catalog.Table, col string) {
	for _, ix := range slices.Clone(t.Indexes) {
		if indexUsesColumn(ix, col) {
			r.recordIndexDrop(t, ix)
			r.cat.DropIndex(t, ix)
		}
	}
}

func indexUsesColumn(ix *catalog.Index, col string) bool {
	for _, p := range ix.Parts {
		if contains(p.Columns(), col) {
			return true
		}
	}
	return contains(ix.Include, col) || contains(catalog.ColumnsOf(ix.Predicate), col)
}

func (r *Replayer) recordIndexDrop(t *catalog.Table, ix *catalog.Index) {
	kind := catalog.ChangeDropIndex
	if ix.Constraint != "" {
		kind = catalog.ChangeDropConstraint
	}
	r.record(kind, t, ix.Name, "", ix)
}

// recordCheckDrop records a dropped CHECK with a copy of it: a rule may ask
// whether it was what kept a key part from being NULL.
func (r *Replayer) recordCheckDrop(t *catalog.Table, ck *catalog.Check) {
	r.record(catalog.ChangeDropConstraint, t, ck.Name, "", nil)
	cp := *ck
	r.hist.Changes[len(r.hist.Changes)-1].Check = &cp
}

func removeColumn(cols []*catalog.Column, name string) []*catalog.Column {
	var out []*catalog.Column
	for _, c := range cols {
		if c.Name != name {
			out = append(out, c)
		}
	}
	return out
}

func removeString(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

func (r *Replayer) alterColumnType(t *catalog.Table, name string, cd *pg.ColumnDef, inh bool) {
	if r.column(t, name) == nil || cd == nil || cd.TypeName == nil {
		return
	}
	for _, target := range r.withChildren(t, inh) {
		if c := target.Column(name); c != nil {
			wasNotNull := c.NotNull
			r.setColumnType(c, cd.TypeName)
			c.NotNull = wasNotNull
		}
	}
}

func (r *Replayer) setNotNull(t *catalog.Table, name string, inh bool) {
	if r.column(t, name) == nil {
		return
	}
	for _, target := range r.withChildren(t, inh) {
		if c := target.Column(name); c != nil {
			c.NotNull, c.NullableSince = true, catalog.Pos{}
			r.record(catalog.ChangeSetNotNull, target, name, "", nil)
		}
	}
}

// dropNotNull makes the column nullable and remembers where, because a
// later rule reports the statement that reopened a hole.
func (r *Replayer) dropNotNull(t *catalog.Table, name string, inh bool) {
	c := r.column(t, name)
	if c == nil {
		return
	}
	for _, ix := range t.Indexes {
		if ix.Primary && contains(keyColumns(ix), name) {
			r.note("42P16", "column %q is in a primary key", name)
			return
		}
	}
	for _, target := range r.withChildren(t, inh) {
		if c := target.Column(name); c != nil && c.NotNull {
			c.NotNull, c.NullableSince = false, r.pos
			r.record(catalog.ChangeDropNotNull, target, name, "", nil)
		}
	}
}

// addConstraint is ADD [CONSTRAINT name] UNIQUE / PRIMARY KEY / CHECK /
// FOREIGN KEY, or one of those written in an added column's definition
// (column is then its name); exclusion constraints are not modelled.
func (r *Replayer) addConstraint(t *catalog.Table, c *pg.Constraint, column string, inh bool) {
	if c == nil {
		return
	}
	switch c.Contype {
	case pg.ConstrType_CONSTR_UNIQUE, pg.ConstrType_CONSTR_PRIMARY:
		r.addIndexConstraint(t, c, column, inh)
	case pg.ConstrType_CONSTR_CHECK:
		r.addCheck(t, c, false)
	case pg.ConstrType_CONSTR_FOREIGN:
		r.addForeignKey(t, c, column, false, inh)
	}
}

// inheritCheck gives the children a CHECK just added to t, under the same
// name, as the server does unless ONLY or NO INHERIT was written.
func (r *Replayer) inheritCheck(t *catalog.Table, c *pg.Constraint, inh bool) {
	if c == nil || c.Contype != pg.ConstrType_CONSTR_CHECK || c.IsNoInherit || !inh || len(t.Checks) == 0 {
		return
	}
	added := t.Checks[len(t.Checks)-1]
	for _, child := range r.withChildren(t, true)[1:] {
		if child.Check(added.Name) == nil {
			cp := *added
			r.cat.AddCheck(child, &cp)
		}
	}
}

// dropConstraint removes a CHECK, a foreign key or the index behind a
// UNIQUE / PRIMARY KEY, which the foreign keys that depend on it keep
// without CASCADE and lose with it.
func (r *Replayer) dropConstraint(t *catalog.Table, name string, missingOk, cascade bool) {
	if r.dropForeignKey(t, name) {
		return
	}
	for _, ck := range t.Checks {
		if ck.Name == name {
			r.cat.DropCheck(t, ck)
			r.recordCheckDrop(t, ck)
			return
		}
	}
	for _, ix := range t.Indexes {
		if ix.Constraint == name {
			if !r.dropKeysUsingIndex(t, ix, fmt.Sprintf("constraint %s on table %s", name, t.Name), cascade) {
				return
			}
			r.cat.DropIndex(t, ix)
			r.record(catalog.ChangeDropConstraint, t, name, "", ix)
			r.dropPartitionCopies(t, ix)
			return
		}
	}
	if !missingOk {
		r.note("42704", "constraint %q of relation %q does not exist", name, t.Name)
	}
}

// dropPartitionCopies removes the partitions' copies of a parent index that
// went away.
func (r *Replayer) dropPartitionCopies(t *catalog.Table, ix *catalog.Index) {
	parentName := t.Schema + "." + ix.Name
	for _, p := range r.partitions(t) {
		for _, own := range slices.Clone(p.Indexes) {
			if own.ParentIndex == parentName {
				r.recordIndexDrop(p, own)
				r.dropPartitionCopies(p, own)
				r.cat.DropIndex(p, own)
			}
		}
	}
}

func (r *Replayer) validateConstraint(t *catalog.Table, name string) {
	if ck := t.Check(name); ck != nil {
		ck.Validated = true
		r.record(catalog.ChangeValidate, t, name, "", nil)
		return
	}
	if fk := t.ForeignKey(name); fk != nil {
		fk.Validated = true
		return
	}
	if tableHasConstraint(t, name) {
		return
	}
	r.note("42704", "constraint %q of relation %q does not exist", name, t.Name)
}

// attachPartition makes child a partition of t; each parent index adopts an
// equivalent index of the child or gets a new copy there.
func (r *Replayer) attachPartition(t *catalog.Table, pc *pg.PartitionCmd) {
	if pc == nil {
		return
	}
	child := r.table(pc.Name, false)
	if child == nil {
		return
	}
	child.PartitionOf = t.QualifiedName()
	for _, c := range t.Columns {
		if cc := child.Column(c.Name); cc != nil && c.NotNull {
			cc.NotNull = true
		}
	}
	for _, ix := range t.Indexes {
		r.cloneOntoPartition(child, t, ix)
	}
	r.cloneParentForeignKeys(child, t)
	r.revalidateOnlyIndexes(t)
}

func (r *Replayer) detachPartition(t *catalog.Table, pc *pg.PartitionCmd) {
	if pc == nil {
		return
	}
	child := r.table(pc.Name, false)
	if child == nil {
		return
	}
	if child.PartitionOf != t.QualifiedName() {
		r.note("42P01", "relation %q is not a partition of relation %q", child.Name, t.Name)
		return
	}
	child.PartitionOf = ""
	for _, ix := range child.Indexes {
		if ix.ParentIndex != "" && r.parentIndexOn(t, ix.ParentIndex) {
			ix.ParentIndex = ""
		}
	}
}

func (r *Replayer) parentIndexOn(t *catalog.Table, qualified string) bool {
	for _, ix := range t.Indexes {
		if t.Schema+"."+ix.Name == qualified {
			return true
		}
	}
	return false
}

// revalidateOnlyIndexes marks an ON ONLY index valid once every partition
// has an index attached to it, as the server does.
func (r *Replayer) revalidateOnlyIndexes(t *catalog.Table) {
	for _, ix := range t.Indexes {
		if ix.Valid {
			continue
		}
		all := true
		for _, p := range r.partitions(t) {
			found := false
			for _, own := range p.Indexes {
				if own.ParentIndex == t.Schema+"."+ix.Name && own.Valid {
					found = true
				}
			}
			all = all && found
		}
		ix.Valid = all
	}
}

// alterIndex handles ALTER INDEX parent ATTACH PARTITION child_index.
func (r *Replayer) alterIndex(at *pg.AlterTableStmt) {
	pt, parent := r.findIndex(at.Relation.Schemaname, at.Relation.Relname)
	if parent == nil {
		if !at.MissingOk {
			r.note("42704", "index %q does not exist", displayName(at.Relation.Schemaname, at.Relation.Relname))
		}
		return
	}
	for _, n := range at.Cmds {
		cmd := n.GetAlterTableCmd()
		if cmd == nil || cmd.Subtype != pg.AlterTableType_AT_AttachPartition {
			continue
		}
		rv := cmd.Def.GetPartitionCmd().GetName()
		if rv == nil {
			continue
		}
		ct, child := r.findIndex(rv.Schemaname, rv.Relname)
		if child == nil {
			r.note("42704", "index %q does not exist", displayName(rv.Schemaname, rv.Relname))
			continue
		}
		child.ParentIndex = pt.Schema + "." + parent.Name
		_ = ct
		r.revalidateOnlyIndexes(pt)
	}
}
