package replay

import (
	"github.com/idemcheck/idemcheck/catalog"
)

// chooseRelationName is catalog.ChooseName against the schema's relations
// (through the index-name cache) and, for a constraint, its constraints.
func (r *Replayer) chooseRelationName(s *catalog.Schema, name1, name2, label string, isConstraint bool) string {
	return catalog.ChooseName(name1, name2, label, func(name string) bool {
		return r.relationExists(s, name) || (isConstraint && s.ConstraintExists(name))
	})
}

// chooseIndexName is catalog.Schema.ChooseIndexName through the
// index-name cache.
func (r *Replayer) chooseIndexName(s *catalog.Schema, table string, colNames []string, primary, isConstraint bool) string {
	switch {
	case primary:
		return r.chooseRelationName(s, table, "", "pkey", true)
	case isConstraint:
		return r.chooseRelationName(s, table, catalog.IndexNameAddition(colNames), "key", true)
	}
	return r.chooseRelationName(s, table, catalog.IndexNameAddition(colNames), "idx", false)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// relationExists is Schema.RelationExists answered from the index-name
// cache: tables and sequences by their maps, an index without scanning
// every table.
func (r *Replayer) relationExists(s *catalog.Schema, name string) bool {
	if _, ok := s.Tables[name]; ok {
		return true
	}
	if _, ok := s.Sequences[name]; ok {
		return true
	}
	return r.indexTable(s, name) != nil
}

// indexTable returns the table of schema s that has an index called name.
func (r *Replayer) indexTable(s *catalog.Schema, name string) *catalog.Table {
	r.indexNames.sync(r.cat)
	t := r.indexNames.bySchema[s][name]
	if t == nil || (s.Tables[t.Name] == t && t.Index(name) != nil) {
		return t
	}
	// A stale entry: something changed the catalog without recording it.
	r.indexNames.rebuild(r.cat)
	return r.indexNames.bySchema[s][name]
}

// indexNameCache maps every index name of every schema to its table.
// Looking a name up by scanning every index of the schema made replay
// quadratic in the number of indexes (a 6,000-index dump spent most of its
// time there). The cache follows the catalog through its change history:
// additions are folded in one change at a time, and any change that can
// remove, rename or move an index or table rebuilds it from the catalog.
type indexNameCache struct {
	built    bool
	synced   int // how many of the catalog's Changes are folded in
	bySchema map[*catalog.Schema]map[string]*catalog.Table
}

// sync brings the cache up to date with the catalog.
func (c *indexNameCache) sync(cat *catalog.Catalog) {
	switch {
	case c.built && c.synced == len(cat.Changes):
	case c.built && c.synced < len(cat.Changes) && c.fold(cat, cat.Changes[c.synced:]):
		c.synced = len(cat.Changes)
	default:
		c.rebuild(cat)
	}
}

// fold adds what changes created; false means a change needs a rebuild.
func (c *indexNameCache) fold(cat *catalog.Catalog, changes []catalog.Change) bool {
	for _, ch := range changes {
		switch ch.Kind {
		case catalog.ChangeCreateIndex, catalog.ChangeAddConstraint, catalog.ChangeCreateTable,
			catalog.ChangeAddColumn, catalog.ChangeSetNotNull, catalog.ChangeDropNotNull,
			catalog.ChangeValidate, catalog.ChangeRenameColumn:
			// These only ever add indexes, and only to the table named:
			// take all of that table's indexes, whichever way they came.
			if !c.addTable(cat, ch.Schema, ch.Table) {
				return false
			}
		case catalog.ChangeUnmodelled:
		default:
			return false
		}
	}
	return true
}

// addTable records every index of one table.
func (c *indexNameCache) addTable(cat *catalog.Catalog, schema, table string) bool {
	s := cat.Schema(schema)
	if s == nil {
		return false
	}
	t := s.Tables[table]
	if t == nil {
		return false
	}
	c.add(s, t)
	return true
}

func (c *indexNameCache) add(s *catalog.Schema, t *catalog.Table) {
	names := c.bySchema[s]
	if names == nil {
		names = map[string]*catalog.Table{}
		c.bySchema[s] = names
	}
	for _, ix := range t.Indexes {
		names[ix.Name] = t
	}
}

// rebuild reads every index of the catalog.
func (c *indexNameCache) rebuild(cat *catalog.Catalog) {
	c.bySchema = map[*catalog.Schema]map[string]*catalog.Table{}
	for _, s := range cat.Schemas {
		for _, t := range s.Tables {
			c.add(s, t)
		}
	}
	c.built, c.synced = true, len(cat.Changes)
}
