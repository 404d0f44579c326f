package replay

import (
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// nameDataLen is PostgreSQL's NAMEDATALEN: identifiers hold at most
// nameDataLen-1 bytes.
const nameDataLen = 64

// makeObjectName builds name1_name2_label the way PostgreSQL's makeObjectName
// does: the longer of name1 and name2 loses one byte at a time until the
// whole fits in 63 bytes, the label is kept whole, and a cut never splits a
// multi-byte character. name2 and label may be empty.
func makeObjectName(name1, name2, label string) string {
	overhead := 0
	if label != "" {
		overhead += len(label) + 1
	}
	n1, n2 := len(name1), 0
	if name2 != "" {
		n2 = len(name2)
		overhead++
	}
	avail := nameDataLen - 1 - overhead
	for n1+n2 > avail {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	out := scan.ClipBytes(name1, n1)
	if name2 != "" {
		out += "_" + scan.ClipBytes(name2, n2)
	}
	if label != "" {
		out += "_" + label
	}
	return out
}

// chooseRelationName picks name1_name2_label, then name1_name2_label1,
// label2, ... until no relation (table or index) of the schema has it and,
// for a constraint, no constraint of the schema has it either.
func (r *Replayer) chooseRelationName(s *catalog.Schema, name1, name2, label string, isConstraint bool) string {
	mod := label
	for pass := 1; ; pass++ {
		name := makeObjectName(name1, name2, mod)
		if !r.relationExists(s, name) && (!isConstraint || !s.ConstraintExists(name)) {
			return name
		}
		mod = label + strconv.Itoa(pass)
	}
}

// chooseConstraintName is ChooseConstraintName: like chooseRelationName but
// only constraint names clash (CHECK constraints are not relations).
func chooseConstraintName(s *catalog.Schema, name1, name2, label string) string {
	mod := label
	for pass := 1; ; pass++ {
		name := makeObjectName(name1, name2, mod)
		if !s.ConstraintExists(name) {
			return name
		}
		mod = label + strconv.Itoa(pass)
	}
}

// chooseIndexName is PostgreSQL's ChooseIndexName for an index without a
// name: {table}_pkey, {table}_{cols}_key for a UNIQUE constraint, and
// {table}_{cols}_idx for CREATE INDEX.
func (r *Replayer) chooseIndexName(s *catalog.Schema, table string, colNames []string, primary, isConstraint bool) string {
	switch {
	case primary:
		return r.chooseRelationName(s, table, "", "pkey", true)
	case isConstraint:
		return r.chooseRelationName(s, table, indexNameAddition(colNames), "key", true)
	}
	return r.chooseRelationName(s, table, indexNameAddition(colNames), "idx", false)
}

// indexNameAddition joins the index column names with "_", stopping once
// the text is long enough that makeObjectName will cut it anyway.
func indexNameAddition(colNames []string) string {
	var b strings.Builder
	for _, n := range colNames {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(scan.TruncateIdent(n))
		if b.Len() >= nameDataLen {
			break
		}
	}
	return b.String()
}

// indexColumnNames gives each key and INCLUDE column of an index the name
// PostgreSQL gives the index's own attributes: the column name, the
// function name of an expression ("lower"), or "expr"; a repeated name gets
// a number ("lower", "lower1"). Generated index names are made of these.
func indexColumnNames(parts []catalog.IndexPart, include []string) []string {
	var out []string
	add := func(orig string) {
		cur := orig
		for i := 1; contains(out, cur); i++ {
			suffix := strconv.Itoa(i)
			cur = scan.ClipBytes(orig, nameDataLen-1-len(suffix)) + suffix
		}
		out = append(out, cur)
	}
	for _, p := range parts {
		if p.Column != "" {
			add(p.Column)
		} else {
			add(exprColumnName(p.Expr))
		}
	}
	for _, c := range include {
		add(c)
	}
	return out
}

// exprColumnName is FigureIndexColname over the model: a column keeps its
// name, a function call gives its name, a cast gives its argument's name or
// else the type name, and anything else is "expr".
func exprColumnName(e catalog.Expr) string {
	switch x := e.(type) {
	case *catalog.ColumnRef:
		return x.Name
	case *catalog.Func:
		if x.Cast && len(x.Args) == 1 {
			if n := exprColumnName(x.Args[0]); n != "expr" {
				return n
			}
			return x.Name
		}
		if !x.Op {
			return x.Name
		}
	case *catalog.Unknown:
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(x.Text)), "CASE") {
			return "case"
		}
	}
	return "expr"
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
