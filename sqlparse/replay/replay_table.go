package replay

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"

	"github.com/idemcheck/idemcheck/catalog"
)

// LIKE option bits as PostgreSQL's TableLikeOption stores them in
// TableLikeClause.Options (the C bit values, not the protobuf enum).
const (
	likeConstraints = 1 << 2
	likeGenerated   = 1 << 4
	likeIdentity    = 1 << 5
	likeIndexes     = 1 << 6
)

// pendingConstraint is a UNIQUE, PRIMARY KEY, CHECK or FOREIGN KEY clause
// seen while reading a CREATE TABLE, created once every column is known.
type pendingConstraint struct {
	c      *pg.Constraint
	column string // set for a column constraint
}

func (r *Replayer) createTable(cs *pg.CreateStmt, defaultSchema string) {
	rv := cs.Relation
	schema := rv.Schemaname
	if schema == "" {
		schema = defaultSchema
	}
	s := r.relationSchema(rv, schema)
	if s == nil {
		return
	}
	name := rv.Relname
	if s.RelationExists(name) {
		if !cs.IfNotExists {
			r.note("42P07", "relation %q already exists", name)
		}
		return
	}
	t := &catalog.Table{Schema: s.Name, Name: name, Pos: r.pos}
	if cs.Partspec != nil {
		t.Kind = catalog.Partitioned
	}
	parents, ok := r.parents(cs.InhRelations)
	if !ok {
		return
	}
	for _, p := range parents {
		if cs.Partbound != nil {
			t.PartitionOf = p.QualifiedName()
		} else {
			t.Inherits = append(t.Inherits, p.QualifiedName())
		}
		inheritColumns(t, p)
	}
	var pending []pendingConstraint
	var likes []*pg.TableLikeClause
	for _, elt := range cs.TableElts {
		switch e := elt.GetNode().(type) {
		case *pg.Node_ColumnDef:
			p, ok := r.columnDef(t, e.ColumnDef)
			if !ok {
				return
			}
			pending = append(pending, p...)
		case *pg.Node_Constraint:
			pending = append(pending, pendingConstraint{c: e.Constraint})
		case *pg.Node_TableLikeClause:
			if src := r.likeColumns(t, e.TableLikeClause); src != nil {
				likes = append(likes, e.TableLikeClause)
			}
		}
	}
	for _, c := range cs.Constraints {
		pending = append(pending, pendingConstraint{c: c.GetConstraint()})
	}
	r.cat.AddTable(t)
	r.record(catalog.ChangeCreateTable, t, name, "", nil)
	// PostgreSQL creates CHECKs with the table, then clones the parent's
	// indexes onto a partition, then builds the table's own indexes; names
	// are generated in that order, so clashes resolve the same way.
	for _, p := range pending {
		if p.c != nil && p.c.Contype == pg.ConstrType_CONSTR_CHECK {
			r.addCheck(t, p.c, true)
		}
	}
	for _, p := range parents {
		if cs.Partbound != nil {
			r.cloneParentIndexes(t, p)
			r.cloneParentForeignKeys(t, p)
		}
	}
	for _, p := range indexConstraints(pending) {
		r.addIndexConstraint(t, p.c, p.column, true)
	}
	for _, l := range likes {
		r.likeIndexes(t, l)
	}
	// Foreign keys come last, as the ALTER TABLE the server runs after
	// building the table; one written NOT VALID is valid all the same,
	// since the new table has no rows.
	for _, p := range pending {
		if p.c != nil && p.c.Contype == pg.ConstrType_CONSTR_FOREIGN {
			r.addForeignKey(t, p.c, p.column, true, true)
		}
	}
}

// indexConstraints are the UNIQUE and PRIMARY KEY clauses of a CREATE
// TABLE in the order PostgreSQL builds them (transformIndexConstraints):
// the primary key first, then the others as written, leaving out one that
// repeats an earlier one (same key, INCLUDE list, NULLS NOT DISTINCT and
// deferrability). A repeat's name goes to an unnamed original.
func indexConstraints(pending []pendingConstraint) []pendingConstraint {
	var out []pendingConstraint
	for _, p := range pending {
		if p.c != nil && p.c.Contype == pg.ConstrType_CONSTR_PRIMARY && len(out) == 0 {
			out = append(out, p)
		}
	}
	for _, p := range pending {
		if p.c == nil || (p.c.Contype != pg.ConstrType_CONSTR_UNIQUE && p.c.Contype != pg.ConstrType_CONSTR_PRIMARY) ||
			(len(out) > 0 && out[0].c == p.c) {
			continue
		}
		keep := true
		for i, prior := range out {
			if sameIndexConstraint(prior, p) {
				if prior.c.Conname == "" && p.c.Conname != "" {
					named := proto.Clone(prior.c).(*pg.Constraint)
					named.Conname = p.c.Conname
					out[i].c = named
				}
				keep = false
				break
			}
		}
		if keep {
			out = append(out, p)
		}
	}
	return out
}

func sameIndexConstraint(a, b pendingConstraint) bool {
	keys := func(p pendingConstraint) []string {
		k := nameList(p.c.Keys)
		if p.column != "" {
			k = append([]string{p.column}, k...)
		}
		return k
	}
	return slices.Equal(keys(a), keys(b)) && slices.Equal(nameList(a.c.Including), nameList(b.c.Including)) &&
		a.c.NullsNotDistinct == b.c.NullsNotDistinct && a.c.Deferrable == b.c.Deferrable &&
		a.c.Initdeferred == b.c.Initdeferred && a.c.Indexname == b.c.Indexname
}

// parents resolves INHERITS / PARTITION OF parents; a missing one fails the
// statement as it would on the server.
func (r *Replayer) parents(nodes []*pg.Node) ([]*catalog.Table, bool) {
	var out []*catalog.Table
	for _, n := range nodes {
		p := r.table(n.GetRangeVar(), false)
		if p == nil {
			return nil, false
		}
		out = append(out, p)
	}
	return out, true
}

// inheritColumns copies the parent's columns (with NOT NULL) and CHECK
// constraints, keeping their names, as inheritance and partitions do.
func inheritColumns(t, parent *catalog.Table) {
	for _, c := range parent.Columns {
		if existing := t.Column(c.Name); existing != nil {
			existing.NotNull = existing.NotNull || c.NotNull
			continue
		}
		cp := *c
		cp.NullableSince = catalog.Pos{}
		t.Columns = append(t.Columns, &cp)
	}
	for _, ck := range parent.Checks {
		if t.Check(ck.Name) == nil {
			// The new table has no rows, so its copy holds for all of
			// them even when the parent's was added NOT VALID.
			cp := *ck
			cp.Validated = true
			t.Checks = append(t.Checks, &cp)
		}
	}
}

// columnDef adds a column (or merges it into an inherited one) and returns
// its UNIQUE, PRIMARY KEY, CHECK and FOREIGN KEY clauses for later. ok is
// false when the server would refuse the clauses, and then the column is not
// added.
func (r *Replayer) columnDef(t *catalog.Table, cd *pg.ColumnDef) (pending []pendingConstraint, ok bool) {
	col := t.Column(cd.Colname)
	fresh := col == nil
	if fresh {
		col = &catalog.Column{Name: cd.Colname, Pos: r.at(cd.Location)}
	}
	serial := false
	if cd.TypeName != nil {
		serial = r.setColumnType(col, cd.TypeName)
	}
	col.NotNull = col.NotNull || cd.IsNotNull
	if pending, ok = r.columnConstraints(col, cd.Constraints); !ok {
		return nil, false
	}
	if fresh {
		t.Columns = append(t.Columns, col)
	}
	if serial || col.Identity {
		seq := r.ownSequence(t, col.Name)
		if serial {
			col.Default = serialDefault(seq)
		}
	}
	return pending, true
}

// columnConstraints applies the NOT NULL, identity and generated clauses of
// a column and hands back its index, CHECK and foreign key clauses.
func (r *Replayer) columnConstraints(col *catalog.Column, nodes []*pg.Node) ([]pendingConstraint, bool) {
	var out []pendingConstraint
	for _, c := range r.constraintAttrs(nodes) {
		if c == nil {
			return nil, false
		}
		switch c.Contype {
		case pg.ConstrType_CONSTR_NOTNULL:
			col.NotNull = true
		case pg.ConstrType_CONSTR_IDENTITY:
			col.Identity, col.NotNull = true, true
		case pg.ConstrType_CONSTR_GENERATED:
			col.Generated, col.Generation = true, convertExpr(c.RawExpr)
		case pg.ConstrType_CONSTR_DEFAULT:
			col.Default = runnableSQL(c.RawExpr)
		case pg.ConstrType_CONSTR_UNIQUE, pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_CHECK, pg.ConstrType_CONSTR_FOREIGN:
			out = append(out, pendingConstraint{c: c, column: col.Name})
		}
	}
	return out, true
}

// constraintAttrs applies the DEFERRABLE, NOT DEFERRABLE and INITIALLY
// DEFERRED / IMMEDIATE clauses of a column definition, which the grammar
// hands over as separate nodes, to the constraint just before each of them
// (PostgreSQL's transformConstraintAttrs): in "a int UNIQUE REFERENCES t
// DEFERRABLE" the foreign key is deferrable and the unique constraint is
// not. It returns copies of the other constraints with their attributes
// set, or a list ending in nil after noting the error the server raises
// for a misplaced or repeated clause. A constraint is copied only when an
// attribute changes it: the parse tree may be shared and is never changed.
func (r *Replayer) constraintAttrs(nodes []*pg.Node) []*pg.Constraint {
	var (
		out                 []*pg.Constraint
		last                *pg.Constraint
		copied              bool
		sawDefer, sawInitly bool
	)
	fail := func(format string, args ...any) []*pg.Constraint {
		r.note("42601", format, args...)
		return append(out, nil)
	}
	for _, n := range nodes {
		c := n.GetConstraint()
		if c == nil {
			continue
		}
		var word string
		switch c.Contype {
		case pg.ConstrType_CONSTR_ATTR_DEFERRABLE:
			word = "DEFERRABLE"
		case pg.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE:
			word = "NOT DEFERRABLE"
		case pg.ConstrType_CONSTR_ATTR_DEFERRED:
			word = "INITIALLY DEFERRED"
		case pg.ConstrType_CONSTR_ATTR_IMMEDIATE:
			word = "INITIALLY IMMEDIATE"
		default:
			last, copied = c, false
			out = append(out, last)
			sawDefer, sawInitly = false, false
			continue
		}
		if last == nil || !takesAttrs(last.Contype) {
			return fail("misplaced %s clause", word)
		}
		if !copied {
			last, copied = proto.Clone(last).(*pg.Constraint), true
			out[len(out)-1] = last
		}
		switch c.Contype {
		case pg.ConstrType_CONSTR_ATTR_DEFERRABLE, pg.ConstrType_CONSTR_ATTR_NOT_DEFERRABLE:
			if sawDefer {
				return fail("multiple DEFERRABLE/NOT DEFERRABLE clauses not allowed")
			}
			sawDefer = true
			last.Deferrable = c.Contype == pg.ConstrType_CONSTR_ATTR_DEFERRABLE
			if !last.Deferrable && sawInitly && last.Initdeferred {
				return fail("constraint declared INITIALLY DEFERRED must be DEFERRABLE")
			}
		default:
			if sawInitly {
				return fail("multiple INITIALLY IMMEDIATE/DEFERRED clauses not allowed")
			}
			sawInitly = true
			last.Initdeferred = c.Contype == pg.ConstrType_CONSTR_ATTR_DEFERRED
			if last.Initdeferred {
				if sawDefer && !last.Deferrable {
					return fail("constraint declared INITIALLY DEFERRED must be DEFERRABLE")
				}
				// INITIALLY DEFERRED alone implies DEFERRABLE.
				last.Deferrable = true
			}
		}
	}
	return out
}

// takesAttrs reports whether a constraint kind can be DEFERRABLE.
func takesAttrs(t pg.ConstrType) bool {
	switch t {
	case pg.ConstrType_CONSTR_UNIQUE, pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_FOREIGN, pg.ConstrType_CONSTR_EXCLUSION:
		return true
	}
	return false
}

// serialTypes map the serial pseudo-types to the column type they create;
// each implies NOT NULL.
var serialTypes = map[string]string{
	"serial": "integer", "serial4": "integer", "bigserial": "bigint", "serial8": "bigint",
	"smallserial": "smallint", "serial2": "smallint",
}

// sqlTypeNames turn the parser's internal type names into the names the
// server's format_type prints, so replayed and live columns read alike.
var sqlTypeNames = map[string]string{
	"int2": "smallint", "int4": "integer", "int8": "bigint", "bool": "boolean",
	"varchar": "character varying", "bpchar": "character", "float4": "real",
	"float8": "double precision", "timestamptz": "timestamp with time zone",
	"timestamp": "timestamp without time zone", "timetz": "time with time zone",
	"time": "time without time zone", "varbit": "bit varying",
}

// setColumnType records the column's type, and what the type implies about
// NULL: serials are NOT NULL, a NOT NULL domain forbids NULL too. It reports
// whether the type was a serial, which also creates a sequence.
func (r *Replayer) setColumnType(col *catalog.Column, tn *pg.TypeName) (serial bool) {
	parts := nameList(tn.Names)
	schema, name := splitQualified(parts)
	if schema == "pg_catalog" {
		schema = ""
	}
	if len(parts) == 1 {
		if base, ok := serialTypes[name]; ok {
			col.Type, col.NotNull = base, true
			return true
		}
	}
	col.Type = formatType(schema, name, tn)
	col.DomainNotNull = false
	if d := r.cat.ResolveDomain(schema, name); d != nil {
		col.DomainNotNull = d.NotNull
	}
	col.Enum = len(tn.ArrayBounds) == 0 && r.cat.ResolveEnum(schema, name) != nil
	return false
}

// ownSequence reserves the name of the sequence a serial or identity column
// creates ({table}_{column}_seq, numbered on a clash, as PostgreSQL chooses
// it), so that a later index of that name is refused as on the server.
func (r *Replayer) ownSequence(t *catalog.Table, column string) string {
	s := r.schemaOf(t)
	name := s.ChooseRelationName(t.Name, column, "seq", false)
	s.AddSequence(name, t.Name)
	return name
}

// serialDefault is the DEFAULT a serial column gets, as the server prints
// it.
func serialDefault(seq string) string {
	return "nextval(" + quoteLiteral(catalog.QuoteIdent(seq)) + "::regclass)"
}

// createSequence records a standalone sequence's name.
func (r *Replayer) createSequence(cs *pg.CreateSeqStmt) {
	s := r.creationSchema(cs.Sequence.GetSchemaname())
	if s == nil {
		return
	}
	name := cs.Sequence.GetRelname()
	if s.RelationExists(name) {
		if !cs.IfNotExists {
			r.note("42P07", "relation %q already exists", name)
		}
		return
	}
	s.AddSequence(name, "")
}

func formatType(schema, name string, tn *pg.TypeName) string {
	if n, ok := sqlTypeNames[name]; ok && schema == "" {
		name = n
	}
	var mods []string
	for _, m := range tn.Typmods {
		if c := m.GetAConst(); c != nil {
			if iv, ok := c.Val.(*pg.A_Const_Ival); ok {
				mods = append(mods, strconv.Itoa(int(iv.Ival.GetIval())))
			}
		}
	}
	if len(mods) > 0 {
		// The precision goes after the type's first word, as format_type
		// prints it: timestamp(6) without time zone.
		head, zone, hasZone := strings.Cut(name, " with")
		if hasZone && strings.HasPrefix(head, "time") {
			name = head + "(" + strings.Join(mods, ",") + ") with" + zone
		} else {
			name += "(" + strings.Join(mods, ",") + ")"
		}
	}
	if schema != "" {
		name = schema + "." + name
	}
	if len(tn.ArrayBounds) > 0 {
		name += "[]"
	}
	return name
}

// likeColumns copies the columns of LIKE's source; NOT NULL always comes
// along. It returns the source table, or nil when it is missing.
func (r *Replayer) likeColumns(t *catalog.Table, l *pg.TableLikeClause) *catalog.Table {
	src := r.table(l.Relation, false)
	if src == nil {
		return nil
	}
	for _, c := range src.Columns {
		if t.Column(c.Name) == nil {
			cp := *c
			cp.NullableSince, cp.Pos = catalog.Pos{}, r.pos
			cp.Identity = c.Identity && l.Options&likeIdentity != 0
			cp.Generated = c.Generated && l.Options&likeGenerated != 0
			if !cp.Generated {
				cp.Generation = nil
			}
			t.Columns = append(t.Columns, &cp)
		}
	}
	if l.Options&likeConstraints != 0 {
		for _, ck := range src.Checks {
			if t.Check(ck.Name) == nil {
				cp := *ck
				t.Checks = append(t.Checks, &cp)
			}
		}
	}
	return src
}

// likeIndexes copies the source's indexes for INCLUDING INDEXES (or ALL),
// each with a name generated for the new table.
func (r *Replayer) likeIndexes(t *catalog.Table, l *pg.TableLikeClause) {
	if l.Options&likeIndexes == 0 {
		return
	}
	src := r.cat.ResolveTable(l.Relation.Schemaname, l.Relation.Relname)
	if src == nil {
		return
	}
	for _, ix := range src.Indexes {
		cp := r.cloneIndex(t, ix)
		cp.ParentIndex = ""
		r.addIndex(t, cp)
	}
}

// cloneIndex copies ix for table t under the name PostgreSQL would generate.
func (r *Replayer) cloneIndex(t *catalog.Table, ix *catalog.Index) *catalog.Index {
	cp := copyIndex(ix)
	isConstraint := ix.Constraint != ""
	cp.Name = r.schemaOf(t).ChooseIndexName(t.Name, catalog.IndexColumnNames(ix.Parts, ix.Include), ix.Primary, isConstraint)
	if isConstraint {
		cp.Constraint = cp.Name
	}
	cp.Pos, cp.RenamedAt, cp.Valid, cp.Ready = r.pos, catalog.Pos{}, true, true
	return cp
}

// cloneParentIndexes gives a new partition a copy of each index of its
// parent, pointing back at the parent's index.
func (r *Replayer) cloneParentIndexes(t, parent *catalog.Table) {
	for _, ix := range parent.Indexes {
		cp := r.cloneIndex(t, ix)
		cp.ParentIndex = parent.Schema + "." + ix.Name
		if ix.Primary {
			setNotNull(t, keyColumns(ix))
		}
		r.addIndex(t, cp)
	}
}

// --- domains ---

func (r *Replayer) createDomain(cd *pg.CreateDomainStmt) {
	schema, name := splitQualified(nameList(cd.Domainname))
	s := r.creationSchema(schema)
	if s == nil {
		return
	}
	if s.Domains[name] != nil {
		r.note("42710", "type %q already exists", name)
		return
	}
	d := &catalog.Domain{Schema: s.Name, Name: name, Pos: r.pos}
	if cd.TypeName != nil {
		ts, tn := splitQualified(nameList(cd.TypeName.Names))
		if ts == "pg_catalog" {
			ts = ""
		}
		d.Type = formatType(ts, tn, cd.TypeName)
	}
	for _, n := range cd.Constraints {
		c := n.GetConstraint()
		switch c.GetContype() {
		case pg.ConstrType_CONSTR_NOTNULL:
			d.NotNull = true
		case pg.ConstrType_CONSTR_CHECK:
			d.Checks = append(d.Checks, domainCheck(name, c, d.Checks))
		}
	}
	s.Domains[name] = d
}

// domainCheck is a CHECK of a domain, named as PostgreSQL names it
// ({domain}_check, numbered on a clash) when the statement names none.
func domainCheck(domain string, c *pg.Constraint, have []*catalog.Check) *catalog.Check {
	name := c.Conname
	if name == "" {
		name = domain + "_check"
		for n := 1; slices.ContainsFunc(have, func(ck *catalog.Check) bool { return ck.Name == name }); n++ {
			name = fmt.Sprintf("%s_check%d", domain, n)
		}
	}
	return &catalog.Check{Name: name, Expr: convertExpr(c.RawExpr), SQL: runnableSQL(c.RawExpr), Validated: !c.SkipValidation}
}

// alterDomain follows ALTER DOMAIN ... SET / DROP NOT NULL onto the columns
// of that type.
func (r *Replayer) alterDomain(ad *pg.AlterDomainStmt) {
	schema, name := splitQualified(nameList(ad.TypeName))
	d := r.cat.ResolveDomain(schema, name)
	if d == nil {
		r.note("42704", "type %q does not exist", displayName(schema, name))
		return
	}
	switch ad.Subtype {
	case "N":
		d.NotNull = false
	case "O":
		d.NotNull = true
	case "C":
		if c := ad.Def.GetConstraint(); c.GetContype() == pg.ConstrType_CONSTR_CHECK {
			d.Checks = append(d.Checks, domainCheck(d.Name, c, d.Checks))
		}
		return
	case "X":
		d.Checks = slices.DeleteFunc(d.Checks, func(ck *catalog.Check) bool { return ck.Name == ad.Name })
		return
	case "V":
		for _, ck := range d.Checks {
			if ck.Name == ad.Name {
				ck.Validated = true
			}
		}
		return
	default:
		return
	}
	for _, t := range r.cat.Tables() {
		for _, c := range t.Columns {
			if c.Type == d.Name || c.Type == d.Schema+"."+d.Name {
				if r.domainOf(c) == d {
					c.DomainNotNull = d.NotNull
				}
			}
		}
	}
}

func (r *Replayer) domainOf(c *catalog.Column) *catalog.Domain {
	return r.cat.ResolveDomain(splitTypeName(c.Type))
}

// splitTypeName splits a column's type as recorded ("schema.name" or
// "name") into its schema and name.
func splitTypeName(typ string) (schema, name string) {
	if i := strings.LastIndexByte(typ, '.'); i >= 0 {
		return typ[:i], typ[i+1:]
	}
	return "", typ
}
