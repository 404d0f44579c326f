package fixes

import "github.com/idemcheck/idemcheck/catalog"

// Taken says which names a schema already holds: relations (tables, indexes
// and sequences share one namespace) and constraints. A *catalog.Schema
// answers it; audit passes an index of its names built once per run.
type Taken interface {
	RelationExists(name string) bool
	ConstraintExists(name string) bool
}

// Namer hands out relation and constraint names that fit in
// catalog.MaxIdentLen bytes and clash with nothing in the schema nor with
// each other.
type Namer struct {
	schema Taken
	table  *catalog.Table
	taken  map[string]bool
}

// NewNamer names the objects a fix adds for table t, avoiding the names
// schema holds. With schema nil only t's own indexes and CHECKs are known.
func NewNamer(schema Taken, t *catalog.Table) *Namer {
	return &Namer{schema: schema, table: t, taken: map[string]bool{}}
}

// Relation is base_label, or base_label1 and on when that is taken, with
// base cut to fit: a name for an index.
func (n *Namer) Relation(base, label string) string {
	return n.pick(base, label, func(name string) bool {
		if n.schema != nil {
			return n.schema.RelationExists(name)
		}
		return n.table.Index(name) != nil || name == n.table.Name
	})
}

// Constraint is Relation for a constraint's name.
func (n *Namer) Constraint(base, label string) string {
	return n.pick(base, label, func(name string) bool {
		if n.schema != nil {
			return n.schema.ConstraintExists(name)
		}
		return n.table.Check(name) != nil
	})
}

// pick is catalog.ChooseName for base and label, also avoiding the names
// this namer has already handed out.
func (n *Namer) pick(base, label string, exists func(string) bool) string {
	name := catalog.ChooseName(base, "", label, func(name string) bool { return n.taken[name] || exists(name) })
	n.taken[name] = true
	return name
}
