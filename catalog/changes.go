package catalog

import "slices"

// The catalog owns its changes: replay (and inspect, while it reads a live
// database) adds, drops and renames objects through these methods, which
// keep each schema's name map in step. The map answers "is this name taken"
// (RelationExists, ConstraintExists) and "which table has this index"
// (FindIndex) without scanning every table, which on a dump of thousands of
// indexes would make replay quadratic.
//
// A schema built as a literal, without these methods, gets its map on the
// first question asked; from then on every change must go through them.

// nameMap is the part of a schema's namespace that its maps do not hold
// already: tables and sequences are keyed by name in Schema.Tables and
// Schema.Sequences, but indexes live in their tables and constraints in
// theirs.
type nameMap struct {
	// indexes lists, for each index name, the tables that have an index of
	// that name; PostgreSQL allows one, replay may briefly see more.
	indexes map[string][]*Table
	// constraints counts the constraints (CHECK, foreign key, and the
	// UNIQUE or PRIMARY KEY an index backs) of each name: PostgreSQL lets
	// tables of one schema reuse a constraint name.
	constraints map[string]int
}

// namesOf returns the schema's name map, building it on first use.
func (s *Schema) namesOf() *nameMap {
	if s.names == nil {
		s.names = &nameMap{indexes: map[string][]*Table{}, constraints: map[string]int{}}
		for _, t := range s.Tables {
			s.names.addTable(t)
		}
	}
	return s.names
}

func (m *nameMap) addTable(t *Table) {
	for _, ix := range t.Indexes {
		m.addIndex(t, ix)
	}
	for _, ck := range t.Checks {
		m.constraints[ck.Name]++
	}
	for _, fk := range t.ForeignKeys {
		m.constraints[fk.Name]++
	}
}

func (m *nameMap) removeTable(t *Table) {
	for _, ix := range t.Indexes {
		m.removeIndex(t, ix)
	}
	for _, ck := range t.Checks {
		m.removeConstraint(ck.Name)
	}
	for _, fk := range t.ForeignKeys {
		m.removeConstraint(fk.Name)
	}
}

func (m *nameMap) addIndex(t *Table, ix *Index) {
	m.indexes[ix.Name] = append(m.indexes[ix.Name], t)
	if ix.Constraint != "" {
		m.constraints[ix.Constraint]++
	}
}

func (m *nameMap) removeIndex(t *Table, ix *Index) {
	tables := m.indexes[ix.Name]
	if i := slices.Index(tables, t); i >= 0 {
		tables = slices.Delete(slices.Clone(tables), i, i+1)
	}
	if len(tables) == 0 {
		delete(m.indexes, ix.Name)
	} else {
		m.indexes[ix.Name] = tables
	}
	if ix.Constraint != "" {
		m.removeConstraint(ix.Constraint)
	}
}

func (m *nameMap) removeConstraint(name string) {
	if m.constraints[name] <= 1 {
		delete(m.constraints, name)
		return
	}
	m.constraints[name]--
}

// names is the map of t's schema when it has been built (nil otherwise:
// the change then needs no bookkeeping, the map is built from the result).
func (c *Catalog) names(t *Table) *nameMap {
	if s := c.Schemas[t.Schema]; s != nil && s.Tables[t.Name] == t {
		return s.names
	}
	return nil
}

// RelationExists reports whether name is taken by a table, materialized
// view, index or sequence of the schema: PostgreSQL keeps them in one
// namespace (pg_class), which is what a new or generated name must avoid.
func (s *Schema) RelationExists(name string) bool {
	if _, ok := s.Tables[name]; ok {
		return true
	}
	if _, ok := s.Sequences[name]; ok {
		return true
	}
	return len(s.namesOf().indexes[name]) > 0
}

// ConstraintExists reports whether a constraint (check, foreign key or
// index-backed) of any table in the schema already has name.
func (s *Schema) ConstraintExists(name string) bool {
	return s.namesOf().constraints[name] > 0
}

// FindIndex finds an index of any table of the schema by name, with its
// table; nil, nil when there is none.
func (s *Schema) FindIndex(name string) (*Table, *Index) {
	for _, t := range s.namesOf().indexes[name] {
		if ix := t.Index(name); ix != nil {
			return t, ix
		}
	}
	return nil, nil
}

// Index finds an index of any table of the schema by name.
func (s *Schema) Index(name string) *Index {
	_, ix := s.FindIndex(name)
	return ix
}

// AddTable puts t, with its indexes and constraints, into the schema t.Schema
// names, which must exist.
func (c *Catalog) AddTable(t *Table) {
	s := c.Schemas[t.Schema]
	s.Tables[t.Name] = t
	if s.names != nil {
		s.names.addTable(t)
	}
}

// DropTable removes t from its schema, with its indexes, its constraints
// and the sequences it owns (those of its serial and identity columns).
// Foreign keys of other tables that refer to it are the caller's to drop.
func (c *Catalog) DropTable(t *Table) {
	s := c.Schemas[t.Schema]
	if s == nil || s.Tables[t.Name] != t {
		return
	}
	if s.names != nil {
		s.names.removeTable(t)
	}
	delete(s.Tables, t.Name)
	for seq, owner := range s.Sequences {
		if owner == t.Name {
			delete(s.Sequences, seq)
		}
	}
}

// RenameRelation renames table t within its schema and follows the new
// name into the tables that name it: the partitions' PartitionOf, the
// children's Inherits and the foreign keys that refer to it.
func (c *Catalog) RenameRelation(t *Table, newName string) {
	s := c.Schemas[t.Schema]
	old := t.QualifiedName()
	delete(s.Tables, t.Name)
	t.Name = newName
	s.Tables[t.Name] = t
	c.retarget(old, t.QualifiedName())
}

// MoveTable moves t, with its indexes and constraints, into schema dst (ALTER
// TABLE ... SET SCHEMA), following the move as RenameRelation does. The
// sequences t owns stay where they are.
func (c *Catalog) MoveTable(t *Table, dst *Schema) {
	src := c.Schemas[t.Schema]
	old := t.QualifiedName()
	if src != nil && src.Tables[t.Name] == t {
		if src.names != nil {
			src.names.removeTable(t)
		}
		delete(src.Tables, t.Name)
	}
	t.Schema = dst.Name
	c.AddTable(t)
	c.retarget(old, t.QualifiedName())
}

// retarget points every reference to the table called old ("schema.table")
// at now. Temporary tables are not looked at.
func (c *Catalog) retarget(old, now string) {
	for _, r := range c.Relations() {
		if r.PartitionOf == old {
			r.PartitionOf = now
		}
		for i, p := range r.Inherits {
			if p == old {
				r.Inherits[i] = now
			}
		}
		for _, fk := range r.ForeignKeys {
			if fk.RefTable == old {
				fk.RefTable = now
			}
		}
	}
}

// DropSchema removes a schema and everything in it.
func (c *Catalog) DropSchema(name string) { delete(c.Schemas, name) }

// AddIndex attaches ix to t.
func (c *Catalog) AddIndex(t *Table, ix *Index) {
	t.Indexes = append(t.Indexes, ix)
	if m := c.names(t); m != nil {
		m.addIndex(t, ix)
	}
}

// DropIndex detaches ix from t; it reports whether t had it.
func (c *Catalog) DropIndex(t *Table, ix *Index) bool {
	i := slices.Index(t.Indexes, ix)
	if i < 0 {
		return false
	}
	t.Indexes = append(t.Indexes[:i:i], t.Indexes[i+1:]...)
	if m := c.names(t); m != nil {
		m.removeIndex(t, ix)
	}
	return true
}

// RenameIndex renames index ix of t and, with it, the constraint it backs.
func (c *Catalog) RenameIndex(t *Table, ix *Index, newName string) {
	m := c.names(t)
	if m != nil {
		m.removeIndex(t, ix)
	}
	ix.Name = newName
	if ix.Constraint != "" {
		ix.Constraint = newName
	}
	if m != nil {
		m.addIndex(t, ix)
	}
}

// SetIndexConstraint makes index ix of t back the UNIQUE or PRIMARY KEY
// constraint called name (ADD CONSTRAINT ... USING INDEX).
func (c *Catalog) SetIndexConstraint(t *Table, ix *Index, name string) {
	m := c.names(t)
	if m != nil {
		m.removeIndex(t, ix)
	}
	ix.Constraint = name
	if m != nil {
		m.addIndex(t, ix)
	}
}

// AddCheck adds a CHECK constraint to t.
func (c *Catalog) AddCheck(t *Table, ck *Check) {
	t.Checks = append(t.Checks, ck)
	if m := c.names(t); m != nil {
		m.constraints[ck.Name]++
	}
}

// DropCheck removes CHECK constraint ck from t; it reports whether t had it.
func (c *Catalog) DropCheck(t *Table, ck *Check) bool {
	i := slices.Index(t.Checks, ck)
	if i < 0 {
		return false
	}
	t.Checks = append(t.Checks[:i:i], t.Checks[i+1:]...)
	if m := c.names(t); m != nil {
		m.removeConstraint(ck.Name)
	}
	return true
}

// AddForeignKey adds a FOREIGN KEY constraint to t.
func (c *Catalog) AddForeignKey(t *Table, fk *ForeignKey) {
	t.ForeignKeys = append(t.ForeignKeys, fk)
	if m := c.names(t); m != nil {
		m.constraints[fk.Name]++
	}
}

// DropForeignKey removes foreign key fk from t; it reports whether t had it.
func (c *Catalog) DropForeignKey(t *Table, fk *ForeignKey) bool {
	i := slices.Index(t.ForeignKeys, fk)
	if i < 0 {
		return false
	}
	t.ForeignKeys = append(t.ForeignKeys[:i:i], t.ForeignKeys[i+1:]...)
	if m := c.names(t); m != nil {
		m.removeConstraint(fk.Name)
	}
	return true
}

// RenameConstraint renames t's CHECK or foreign key called old; it reports
// whether t had one. An index-backed constraint is renamed with its index
// (RenameIndex).
func (c *Catalog) RenameConstraint(t *Table, old, newName string) bool {
	if ck := t.Check(old); ck != nil {
		ck.Name = newName
	} else if fk := t.ForeignKey(old); fk != nil {
		fk.Name = newName
	} else {
		return false
	}
	if m := c.names(t); m != nil {
		m.removeConstraint(old)
		m.constraints[newName]++
	}
	return true
}

// AddSequence records a sequence of the schema, owned by the table called
// owner ("" for a standalone sequence).
func (s *Schema) AddSequence(name, owner string) { s.Sequences[name] = owner }

// DropSequence removes a sequence; it reports whether the schema had it.
func (s *Schema) DropSequence(name string) bool {
	if _, ok := s.Sequences[name]; !ok {
		return false
	}
	delete(s.Sequences, name)
	return true
}

// RenameColumn renames column old of t, and the column everywhere t and
// the tables referring to it use it: key parts, INCLUDE lists, index
// predicates, CHECKs, generation expressions, t's foreign keys and the
// referenced columns of other tables' foreign keys. Expressions are copied,
// never changed, because recorded history shares them.
func (c *Catalog) RenameColumn(t *Table, old, newName string) {
	col := t.Column(old)
	if col == nil {
		return
	}
	col.Name = newName
	rename := func(n string) string {
		if n == old {
			return newName
		}
		return n
	}
	for _, ix := range t.Indexes {
		parts := make([]IndexPart, len(ix.Parts))
		for i, p := range ix.Parts {
			if p.Column == old {
				p.Column = newName
			}
			p.Expr = RenameColumns(p.Expr, rename)
			parts[i] = p
		}
		ix.Parts = parts
		renameIn(ix.Include, old, newName)
		ix.Predicate = RenameColumns(ix.Predicate, rename)
	}
	for _, ck := range t.Checks {
		ck.Expr = RenameColumns(ck.Expr, rename)
	}
	for _, col := range t.Columns {
		col.Generation = RenameColumns(col.Generation, rename)
	}
	for _, fk := range t.ForeignKeys {
		renameIn(fk.Columns, old, newName)
	}
	_, keys := c.ReferencingKeys(t, old)
	for _, fk := range keys {
		renameIn(fk.RefColumns, old, newName)
	}
}

func renameIn(list []string, old, newName string) {
	for i, x := range list {
		if x == old {
			list[i] = newName
		}
	}
}

// ReferencingKeys lists the foreign keys of other tables that refer to t
// (to column col of t when col is set), with their tables, in no
// particular order. A key of t that refers to t itself counts only for a
// column.
func (c *Catalog) ReferencingKeys(t *Table, col string) (tables []*Table, keys []*ForeignKey) {
	qn := t.QualifiedName()
	for _, s := range c.Schemas {
		for _, other := range s.Tables {
			for _, fk := range other.ForeignKeys {
				if fk.RefTable == qn && (col == "" || slices.Contains(fk.RefColumns, col)) && !(other == t && col == "") {
					tables, keys = append(tables, other), append(keys, fk)
				}
			}
		}
	}
	return tables, keys
}
