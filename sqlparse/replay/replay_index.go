package replay

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/idemcheck/idemcheck/catalog"
)

// createIndex is CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS]. Its
// position is the statement's first token. On a partitioned table without
// ONLY, every partition gets its own copy, as on the server.
func (r *Replayer) createIndex(is *pg.IndexStmt) {
	if is.Concurrent && r.inBody > 0 {
		r.note("25001", "CREATE INDEX CONCURRENTLY cannot be executed from a function")
		return
	}
	t := r.table(is.Relation, false)
	if t == nil {
		return
	}
	s := r.schemaOf(t)
	ix := &catalog.Index{
		Unique:           is.Unique,
		Primary:          is.Primary,
		NullsNotDistinct: is.NullsNotDistinct,
		Parts:            indexParts(is.IndexParams),
		Include:          indexIncludes(is.IndexIncludingParams),
		Predicate:        convertExpr(is.WhereClause),
		Valid:            true,
		Ready:            true,
		Method:           indexMethod(is.AccessMethod),
		Pos:              r.pos,
	}
	if missing := missingColumn(t, ix); missing != "" {
		r.note("42703", "column %q does not exist", missing)
		return
	}
	ix.Name = is.Idxname
	if ix.Name == "" {
		ix.Name = s.ChooseIndexName(t.Name, catalog.IndexColumnNames(ix.Parts, ix.Include), false, false)
	} else if s.RelationExists(ix.Name) {
		if !is.IfNotExists {
			r.note("42P07", "relation %q already exists", ix.Name)
		}
		return
	}
	partitions := r.partitions(t)
	if t.Kind == catalog.Partitioned && !is.Relation.Inh && len(partitions) > 0 {
		// ON ONLY: invalid until every partition's index is attached.
		ix.Valid = false
	}
	r.addIndex(t, ix)
	if is.Relation.Inh {
		for _, p := range partitions {
			r.cloneOntoPartition(p, t, ix)
		}
	}
}

// cloneOntoPartition gives partition p a copy of parent index ix, or adopts
// an equivalent index p already has, as CREATE INDEX on a partitioned
// table and ATTACH PARTITION do.
func (r *Replayer) cloneOntoPartition(p, parent *catalog.Table, ix *catalog.Index) {
	parentName := parent.Schema + "." + ix.Name
	for _, own := range p.Indexes {
		if own.ParentIndex == "" && sameIndexDefinition(own, ix) {
			own.ParentIndex = parentName
			return
		}
	}
	cp := r.cloneIndex(p, ix)
	cp.ParentIndex = parentName
	if ix.Primary {
		setNotNull(p, keyColumns(ix))
	}
	r.addIndex(p, cp)
	for _, sub := range r.partitions(p) {
		r.cloneOntoPartition(sub, p, cp)
	}
}

// sameIndexDefinition reports whether two indexes would be interchangeable
// for attaching: same keys, uniqueness, predicate and include list.
func sameIndexDefinition(a, b *catalog.Index) bool {
	if a.Unique != b.Unique || a.NullsNotDistinct != b.NullsNotDistinct || len(a.Parts) != len(b.Parts) ||
		!catalog.Equal(a.Predicate, b.Predicate) || a.Method != b.Method {
		return false
	}
	for i := range a.Parts {
		if a.Parts[i].String() != b.Parts[i].String() {
			return false
		}
	}
	return len(a.Include) == len(b.Include)
}

// partitions lists the tables attached as partitions of t.
func (r *Replayer) partitions(t *catalog.Table) []*catalog.Table {
	if t.Kind != catalog.Partitioned {
		// Only a partitioned table has partitions; skipping the scan keeps
		// replay of a large dump linear.
		return nil
	}
	var out []*catalog.Table
	for _, c := range r.children(t) {
		if c.PartitionOf == t.QualifiedName() {
			out = append(out, c)
		}
	}
	return out
}

func indexMethod(m string) string {
	if m == "" {
		return "btree"
	}
	return m
}

// addIndex attaches an index to its table and records the change.
func (r *Replayer) addIndex(t *catalog.Table, ix *catalog.Index) {
	r.cat.AddIndex(t, ix)
	kind := catalog.ChangeCreateIndex
	if ix.Constraint != "" {
		kind = catalog.ChangeAddConstraint
	}
	r.record(kind, t, ix.Name, "", ix)
}

func indexParts(params []*pg.Node) []catalog.IndexPart {
	parts := make([]catalog.IndexPart, 0, len(params))
	for _, p := range params {
		el := p.GetIndexElem()
		if el == nil {
			continue
		}
		if el.Name != "" {
			parts = append(parts, catalog.IndexPart{Column: el.Name})
			continue
		}
		e := convertExpr(el.Expr)
		if c, ok := e.(*catalog.ColumnRef); ok {
			// "(email)" or "(email::text)" is the column itself.
			parts = append(parts, catalog.IndexPart{Column: c.Name})
			continue
		}
		parts = append(parts, catalog.IndexPart{Expr: e})
	}
	return parts
}

func indexIncludes(params []*pg.Node) []string {
	var out []string
	for _, p := range params {
		if el := p.GetIndexElem(); el != nil && el.Name != "" {
			out = append(out, el.Name)
		}
	}
	return out
}

// missingColumn returns the first column an index names that the table
// lacks, or "".
func missingColumn(t *catalog.Table, ix *catalog.Index) string {
	for _, p := range ix.Parts {
		for _, c := range p.Columns() {
			if t.Column(c) == nil {
				return c
			}
		}
	}
	for _, c := range ix.Include {
		if t.Column(c) == nil {
			return c
		}
	}
	return ""
}

// keyColumns lists the plain columns among an index's key parts.
func keyColumns(ix *catalog.Index) []string {
	var out []string
	for _, p := range ix.Parts {
		if p.Column != "" {
			out = append(out, p.Column)
		}
	}
	return out
}

func setNotNull(t *catalog.Table, cols []string) {
	for _, name := range cols {
		if c := t.Column(name); c != nil {
			c.NotNull = true
			c.NullableSince = catalog.Pos{}
		}
	}
}

// addIndexConstraint is UNIQUE or PRIMARY KEY inside CREATE TABLE or ALTER
// TABLE ADD. Its position is the clause's own. USING INDEX adopts an
// existing index instead of building one. inh is false for ALTER TABLE
// ONLY: on a partitioned table with partitions the constraint's index is
// then built on the parent alone and stays invalid until an index of each
// partition is attached to it, which is how pg_dump writes them.
func (r *Replayer) addIndexConstraint(t *catalog.Table, c *pg.Constraint, column string, inh bool) {
	s := r.schemaOf(t)
	primary := c.Contype == pg.ConstrType_CONSTR_PRIMARY
	if primary && hasPrimaryKey(t) {
		r.note("42P16", "multiple primary keys for table %q are not allowed", t.Name)
		return
	}
	if c.Indexname != "" {
		r.constraintUsingIndex(t, c, primary)
		return
	}
	ix := &catalog.Index{
		Unique:            true,
		Primary:           primary,
		NullsNotDistinct:  c.NullsNotDistinct,
		Include:           nameList(c.Including),
		Deferrable:        c.Deferrable,
		InitiallyDeferred: c.Initdeferred,
		Valid:             true,
		Ready:             true,
		Method:            "btree",
		Pos:               r.at(c.Location),
	}
	if column != "" {
		ix.Parts = []catalog.IndexPart{{Column: column}}
	}
	for _, k := range nameList(c.Keys) {
		ix.Parts = append(ix.Parts, catalog.IndexPart{Column: k})
	}
	if missing := missingColumn(t, ix); missing != "" {
		r.note("42703", "column %q named in key does not exist", missing)
		return
	}
	name := c.Conname
	if name == "" {
		name = s.ChooseIndexName(t.Name, catalog.IndexColumnNames(ix.Parts, ix.Include), primary, true)
	} else if s.RelationExists(name) {
		r.note("42P07", "relation %q already exists", name)
		return
	} else if t.Check(name) != nil {
		r.note("42710", "constraint %q for relation %q already exists", name, t.Name)
		return
	}
	ix.Name, ix.Constraint = name, name
	if primary {
		setNotNull(t, keyColumns(ix))
	}
	partitions := r.partitions(t)
	if !inh && len(partitions) > 0 {
		ix.Valid = false
	}
	r.addIndex(t, ix)
	if inh {
		for _, p := range partitions {
			r.cloneOntoPartition(p, t, ix)
		}
	}
}

func hasPrimaryKey(t *catalog.Table) bool {
	for _, ix := range t.Indexes {
		if ix.Primary {
			return true
		}
	}
	return false
}

// constraintUsingIndex is ADD CONSTRAINT ... UNIQUE / PRIMARY KEY USING
// INDEX: the index is renamed to the constraint's name and now backs it.
func (r *Replayer) constraintUsingIndex(t *catalog.Table, c *pg.Constraint, primary bool) {
	ix := t.Index(c.Indexname)
	if ix == nil {
		r.note("42704", "index %q does not exist", c.Indexname)
		return
	}
	if ix.Constraint != "" {
		r.note("55000", "index %q is already associated with a constraint", ix.Name)
		return
	}
	if !ix.Unique {
		r.note("42809", "%q is not a unique index", ix.Name)
		return
	}
	name := c.Conname
	if name == "" {
		name = ix.Name
	}
	if name != ix.Name {
		old := ix.Name
		r.cat.RenameIndex(t, ix, name)
		ix.RenamedAt = r.pos
		r.record(catalog.ChangeRenameIndex, t, name, old, ix)
	}
	r.cat.SetIndexConstraint(t, ix, name)
	ix.Primary = primary
	ix.Deferrable, ix.InitiallyDeferred = c.Deferrable, c.Initdeferred
	if primary {
		setNotNull(t, keyColumns(ix))
	}
	r.record(catalog.ChangeAddConstraint, t, name, "", ix)
}

// addCheck adds a CHECK constraint. In CREATE TABLE it is valid whatever it
// says; ALTER TABLE ... NOT VALID leaves existing rows unchecked.
func (r *Replayer) addCheck(t *catalog.Table, c *pg.Constraint, inCreate bool) {
	expr := convertExpr(c.RawExpr)
	name := c.Conname
	if name == "" {
		single := ""
		if cols := rawColumnRefs(c.RawExpr); len(cols) == 1 {
			single = cols[0]
		}
		name = r.schemaOf(t).ChooseConstraintName(t.Name, single, "check")
	} else if t.Check(name) != nil || tableHasConstraint(t, name) {
		r.note("42710", "constraint %q for relation %q already exists", name, t.Name)
		return
	}
	ck := &catalog.Check{Name: name, Expr: expr, SQL: runnableSQL(c.RawExpr), Validated: inCreate || !c.SkipValidation, Pos: r.at(c.Location)}
	r.cat.AddCheck(t, ck)
	if !inCreate {
		r.record(catalog.ChangeAddConstraint, t, name, "", nil)
	}
}

// tableHasConstraint reports whether t has an index-backed constraint or a
// foreign key called name.
func tableHasConstraint(t *catalog.Table, name string) bool {
	if t.ForeignKey(name) != nil {
		return true
	}
	for _, ix := range t.Indexes {
		if ix.Constraint == name {
			return true
		}
	}
	return false
}

// rawColumnRefs lists the distinct column names an expression reads,
// looking through every node (also those the model keeps as Unknown), the
// way PostgreSQL picks a CHECK name from the variables it finds.
func rawColumnRefs(n *pg.Node) []string {
	var out []string
	if n == nil {
		return nil
	}
	var visit func(m protoreflect.Message)
	visit = func(m protoreflect.Message) {
		if cr, ok := m.Interface().(*pg.ColumnRef); ok {
			if e, ok := convertColumnRef(&pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: cr}}).(*catalog.ColumnRef); ok && !contains(out, e.Name) {
				out = append(out, e.Name)
			}
			return
		}
		if _, ok := m.Interface().(*pg.SubLink); ok {
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					visit(l.Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				visit(v.Message())
			}
			return true
		})
	}
	visit(n.ProtoReflect())
	return out
}
