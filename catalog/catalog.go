// Package catalog is idemcheck's model of a PostgreSQL schema: schemas, tables,
// columns, indexes, constraints and domains, each with the source position that
// created it, plus a parser-independent expression form (Expr).
//
// Two sources fill it: sqlparse replays migration files into it, inspect reads
// a live database into it. The audit rules only ever see this model, which is
// why a finding reads the same whichever way the catalog was built. What
// replay saw on the way (the changes it made, the INSERT ... ON CONFLICT
// statements it read) is a History beside the catalog, not part of it.
//
// The package is data, lookups, the changes that keep each schema's name map
// (changes.go), PostgreSQL's rules for the names it generates (names.go) and
// a walker over expressions. It imports nothing outside the standard
// library, does no I/O and never prints.
package catalog

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a place in a source file. Line and Col are 1-based; Col counts
// characters (runes), the way editors and CI annotations count them. A live
// catalog has no files: its objects carry a zero Pos.
type Pos struct {
	File string
	Line int
	Col  int
}

// IsZero reports whether p names no place.
func (p Pos) IsZero() bool { return p.File == "" && p.Line == 0 }

// String formats p as file:line:col, the prefix editors and CI jump to.
func (p Pos) String() string {
	if p.IsZero() {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Catalog is a whole database as far as idemcheck models it.
type Catalog struct {
	// Schemas by name (already case-folded: "public", "Billing" when quoted).
	Schemas map[string]*Schema
	// SearchPath is the schema list unqualified names resolve through.
	SearchPath []string
	// ServerVersion is the live server's version number (for example 150004),
	// zero for a replayed catalog.
	ServerVersion int
}

// History is what replay saw on its way to a catalog, which the catalog
// itself does not hold: the changes it made, in order, and the INSERT ...
// ON CONFLICT statements it read. Rules about how a hole was opened read
// the changes; on-conflict-hole reads the queries. A live catalog has no
// history.
type History struct {
	Changes []Change
	Queries []Query
}

// New returns an empty catalog with the public schema, as a fresh database has.
func New() *Catalog {
	c := &Catalog{Schemas: map[string]*Schema{}, SearchPath: []string{"public"}}
	c.AddSchema("public")
	return c
}

// AddSchema returns the schema called name, creating it when it is missing.
func (c *Catalog) AddSchema(name string) *Schema {
	if s, ok := c.Schemas[name]; ok {
		return s
	}
	s := &Schema{Name: name, Tables: map[string]*Table{}, Domains: map[string]*Domain{}, Enums: map[string]*Enum{},
		Sequences: map[string]string{}}
	c.Schemas[name] = s
	return s
}

// Schema returns the schema called name, or nil.
func (c *Catalog) Schema(name string) *Schema { return c.Schemas[name] }

// SchemaNames returns the schema names in sorted order.
func (c *Catalog) SchemaNames() []string {
	names := make([]string, 0, len(c.Schemas))
	for n := range c.Schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Tables returns every table of every schema, sorted by schema then name, so
// that rules report in a stable order. Materialized views are left out:
// they live in Schema.Tables, because they take names and carry indexes as
// tables do, but no INSERT ever reaches one, so no rule about duplicate
// writes applies to them.
func (c *Catalog) Tables() []*Table {
	var out []*Table
	for _, t := range c.Relations() {
		if t.Kind != MaterializedView {
			out = append(out, t)
		}
	}
	return out
}

// TempSchema holds the temporary tables a migration creates: unqualified
// names find them first, as on the server, but they end with the session
// that made them, so they are no relation of the database afterwards.
const TempSchema = "pg_temp"

// Relations is Tables with the materialized views, in the same order.
// Temporary tables are in neither.
func (c *Catalog) Relations() []*Table {
	var out []*Table
	for _, sn := range c.SchemaNames() {
		if sn == TempSchema {
			continue
		}
		s := c.Schemas[sn]
		names := make([]string, 0, len(s.Tables))
		for n := range s.Tables {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			out = append(out, s.Tables[n])
		}
	}
	return out
}

// ResolveTable finds a table by schema (may be empty) and name, going through
// the search path for an unqualified name.
func (c *Catalog) ResolveTable(schema, name string) *Table {
	if schema != "" {
		if s := c.Schemas[schema]; s != nil {
			return s.Tables[name]
		}
		return nil
	}
	if s := c.Schemas[TempSchema]; s != nil {
		if t := s.Tables[name]; t != nil {
			return t
		}
	}
	for _, sn := range c.SearchPath {
		if s := c.Schemas[sn]; s != nil {
			if t := s.Tables[name]; t != nil {
				return t
			}
		}
	}
	return nil
}

// ResolveDomain finds a domain the same way ResolveTable finds a table.
func (c *Catalog) ResolveDomain(schema, name string) *Domain {
	if schema != "" {
		if s := c.Schemas[schema]; s != nil {
			return s.Domains[name]
		}
		return nil
	}
	for _, sn := range append(append([]string(nil), c.SearchPath...), "pg_catalog") {
		if s := c.Schemas[sn]; s != nil {
			if d := s.Domains[name]; d != nil {
				return d
			}
		}
	}
	return nil
}

// Schema is a namespace of tables, indexes and domains.
type Schema struct {
	Name string
	// Tables holds the tables and the materialized views by name.
	Tables  map[string]*Table
	Domains map[string]*Domain
	// Enums are the enum types with their labels: those replay saw
	// created (CREATE TYPE ... AS ENUM), which it needs to tell which
	// columns are of an enum type, or those a live server holds. A
	// witness row takes a label from here.
	Enums map[string]*Enum
	// Sequences maps each sequence name to the table that owns it (serial
	// and identity columns), "" for a standalone sequence. They matter only
	// because they take names in the same namespace as tables and indexes.
	Sequences map[string]string

	// names maps the names of the schema's indexes and constraints,
	// built on first use and kept by the methods that change the catalog
	// (changes.go).
	names *nameMap
}

// TableKind says what sort of relation a table is.
type TableKind int

const (
	Ordinary         TableKind = iota // a plain heap table
	Partitioned                       // a partitioned parent: holds no rows itself
	MaterializedView                  // rows come from its query; indexes, no constraints
)

// Table is a table, a partitioned table, a partition or a materialized
// view.
type Table struct {
	Schema string
	Name   string
	Kind   TableKind
	// PartitionOf names the parent ("schema.table") when this table is
	// attached as a partition.
	PartitionOf string
	// Inherits names the parents of an INHERITS table ("schema.table").
	Inherits []string
	Columns  []*Column
	Indexes  []*Index
	Checks   []*Check
	// ForeignKeys are the table's FOREIGN KEY constraints. The rules read
	// them as structure: a key part that references a parent row scopes the
	// row rather than identifying it.
	ForeignKeys []*ForeignKey
	Pos         Pos
}

// ForeignKey is a FOREIGN KEY constraint: Columns of the table reference
// RefColumns of RefTable. Replay follows it by name (the names PostgreSQL
// generates, DROP, RENAME and VALIDATE CONSTRAINT).
type ForeignKey struct {
	Name    string
	Columns []string
	// RefTable is the referenced table, "schema.table"; RefColumns are its
	// columns (the primary key's when none were written).
	RefTable   string
	RefColumns []string
	Deferrable bool
	// InitiallyDeferred is set for INITIALLY DEFERRED.
	InitiallyDeferred bool
	// Validated is false for a key added NOT VALID and not yet validated.
	Validated bool
	// OnDelete is the action on deleting the referenced row, as
	// pg_constraint.confdeltype has it: "a" no action (the default), "r"
	// restrict, "c" cascade, "n" set null, "d" set default.
	OnDelete string
	Pos      Pos
	// RefIndex is the unique index of RefTable the key depends on, as the
	// server records it (pg_constraint.conindid): the primary key for a
	// key written without columns, else the first index created that
	// matches. DROP INDEX and DROP CONSTRAINT on it are refused without
	// CASCADE and drop the key with it. Nil when not known (inspect).
	RefIndex *Index
}

// ForeignKeyOn returns a foreign key of the table that column is part of,
// or nil.
func (t *Table) ForeignKeyOn(column string) *ForeignKey {
	for _, fk := range t.ForeignKeys {
		for _, c := range fk.Columns {
			if c == column {
				return fk
			}
		}
	}
	return nil
}

// QualifiedName is schema.table.
func (t *Table) QualifiedName() string { return t.Schema + "." + t.Name }

// DisplayName is the name a person would write: the table alone when it lives
// in public, schema.table otherwise. Messages use it.
func (t *Table) DisplayName() string {
	if t.Schema == "public" || t.Schema == "" {
		return QuoteIdent(t.Name)
	}
	return QuoteIdent(t.Schema) + "." + QuoteIdent(t.Name)
}

// Column finds a column by name, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Index finds an index of this table by name, or nil.
func (t *Table) Index(name string) *Index {
	for _, ix := range t.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// Check finds a CHECK constraint of this table by name, or nil.
func (t *Table) Check(name string) *Check {
	for _, ck := range t.Checks {
		if ck.Name == name {
			return ck
		}
	}
	return nil
}

// ForeignKey finds a FOREIGN KEY constraint of this table by name, or nil.
func (t *Table) ForeignKey(name string) *ForeignKey {
	for _, fk := range t.ForeignKeys {
		if fk.Name == name {
			return fk
		}
	}
	return nil
}

// UniqueIndexes returns the table's unique indexes (primary keys included) in
// definition order.
func (t *Table) UniqueIndexes() []*Index {
	var out []*Index
	for _, ix := range t.Indexes {
		if ix.Unique || ix.Primary {
			out = append(out, ix)
		}
	}
	return out
}

// Column is a table column.
type Column struct {
	Name string
	// Type is the type as written or as the server formats it ("text",
	// "bigint", "public.email_address").
	Type string
	// NotNull is the column's own NOT NULL (attnotnull): declared, or set by a
	// PRIMARY KEY, identity or serial.
	NotNull bool
	// DomainNotNull is set when the column's type is a domain declared NOT NULL.
	DomainNotNull bool
	Identity      bool
	Generated     bool
	// Enum is set when the column's type is an enum type: a fixed set of
	// labels, which the rules read as a discriminator.
	Enum bool
	// Generation is the expression of a GENERATED ALWAYS AS (...) STORED
	// column, nil for any other column. The null-safety reasoner reads it:
	// COALESCE(a, 'x') is never NULL whatever a holds.
	Generation Expr
	// Default is the column's DEFAULT expression as SQL PostgreSQL can run
	// ("now()", "'pending'::text", "nextval('t_id_seq'::regclass)" for a
	// serial), "" when it has none. The prover copies it; no rule reads it.
	Default string
	Pos     Pos
	// NullableSince is where a later statement made the column nullable
	// (ALTER COLUMN ... DROP NOT NULL, or the column re-created without NOT
	// NULL). Zero when the column has been nullable since it was created or is
	// NOT NULL now.
	NullableSince Pos
}

// IsNotNull reports whether the column can never hold NULL by its definition
// (its own NOT NULL or its domain's).
func (c *Column) IsNotNull() bool { return c.NotNull || c.DomainNotNull }

// Check is a CHECK constraint (of a table, or of a domain, where the
// expression reads VALUE).
type Check struct {
	Name string
	Expr Expr
	// SQL is the expression as PostgreSQL can run it, written out by the
	// parser (replay) or by the server (inspect); "" when the source could
	// not render it, and then a copy of the table cannot have it.
	SQL string
	// Validated is false for a constraint added NOT VALID and not yet
	// validated: existing rows were never checked against it.
	Validated bool
	Pos       Pos
}

// Enum is a CREATE TYPE ... AS ENUM type.
type Enum struct {
	Schema string
	Name   string
	Labels []string
	Pos    Pos
}

// ResolveEnum finds an enum type the same way ResolveDomain finds a domain.
func (c *Catalog) ResolveEnum(schema, name string) *Enum {
	if schema != "" {
		if s := c.Schemas[schema]; s != nil {
			return s.Enums[name]
		}
		return nil
	}
	for _, sn := range c.SearchPath {
		if s := c.Schemas[sn]; s != nil {
			if e := s.Enums[name]; e != nil {
				return e
			}
		}
	}
	return nil
}

// Domain is a CREATE DOMAIN type.
type Domain struct {
	Schema  string
	Name    string
	Type    string
	NotNull bool
	// Checks are the domain's CHECK constraints; their expressions read
	// the value as the column VALUE.
	Checks []*Check
	Pos    Pos
}

// IndexPart is one key part of an index: a column or an expression.
type IndexPart struct {
	Column string // set for a plain column part
	Expr   Expr   // set for an expression part
}

// String is the part as it would appear in CREATE INDEX.
func (p IndexPart) String() string {
	if p.Column != "" {
		return QuoteIdent(p.Column)
	}
	if p.Expr == nil {
		return "?"
	}
	return "(" + p.Expr.String() + ")"
}

// Columns lists the columns the part reads.
func (p IndexPart) Columns() []string {
	if p.Column != "" {
		return []string{p.Column}
	}
	return ColumnsOf(p.Expr)
}

// Index is an index, or the index behind a UNIQUE or PRIMARY KEY constraint.
type Index struct {
	Name             string
	Unique           bool
	Primary          bool
	NullsNotDistinct bool
	Parts            []IndexPart
	// Include lists INCLUDE columns; they are not key parts and never matter
	// for uniqueness.
	Include []string
	// Predicate is the WHERE clause of a partial index, nil otherwise.
	Predicate Expr
	// Constraint is the name of the UNIQUE or PRIMARY KEY constraint the index
	// backs, empty for a standalone index.
	Constraint        string
	Deferrable        bool
	InitiallyDeferred bool
	// Valid and Ready are pg_index.indisvalid and indisready; replayed
	// indexes are always both.
	Valid bool
	Ready bool
	// Method is the access method ("btree" unless said otherwise).
	Method string
	Pos    Pos
	// RenamedAt is where a later statement renamed the index, if one did.
	RenamedAt Pos
	// ParentIndex names ("schema.index") the index on the partitioned parent
	// that this index was created for or attached to. Rules report a hole
	// once, on the parent, not again on every partition's copy.
	ParentIndex string
}

// PartNames returns the key parts as they would be written, for messages.
func (ix *Index) PartNames() []string {
	out := make([]string, len(ix.Parts))
	for i, p := range ix.Parts {
		if p.Column != "" {
			out[i] = p.Column
		} else {
			out[i] = p.String()
		}
	}
	return out
}

// ChangeKind names a change replay recorded.
type ChangeKind string

const (
	ChangeCreateIndex    ChangeKind = "create-index"
	ChangeDropIndex      ChangeKind = "drop-index"
	ChangeAddConstraint  ChangeKind = "add-constraint"
	ChangeDropConstraint ChangeKind = "drop-constraint"
	ChangeDropNotNull    ChangeKind = "drop-not-null"
	ChangeSetNotNull     ChangeKind = "set-not-null"
	ChangeAddColumn      ChangeKind = "add-column"
	ChangeDropColumn     ChangeKind = "drop-column"
	ChangeRenameColumn   ChangeKind = "rename-column"
	ChangeRenameIndex    ChangeKind = "rename-index"
	ChangeRenameTable    ChangeKind = "rename-table"
	ChangeDropTable      ChangeKind = "drop-table"
	ChangeCreateTable    ChangeKind = "create-table"
	ChangeValidate       ChangeKind = "validate-constraint"
	ChangeUnmodelled     ChangeKind = "unmodelled" // DO blocks, functions running DDL
)

// Change is one change to the catalog made by one statement during replay.
type Change struct {
	Kind   ChangeKind
	Pos    Pos
	File   string // the migration file, so rules can tell "the same migration"
	Schema string
	Table  string
	// Object is the index, constraint or column the change is about.
	Object string
	// OldName is the previous name for a rename.
	OldName string
	// Index is a copy of the index as it was when created or dropped, for
	// rules that compare keys across changes.
	Index *Index
	// Check is a copy of a CHECK constraint as it was when dropped, so rules
	// can tell whether it was what kept a key part from being NULL.
	Check *Check
}

// QuoteIdent quotes an identifier only when PostgreSQL needs it quoted: when
// it is not all lower case letters, digits and underscores, starts with a
// digit, or is a reserved keyword.
func QuoteIdent(name string) string {
	if name == "" {
		return `""`
	}
	plain := !(name[0] >= '0' && name[0] <= '9')
	for i := 0; i < len(name) && plain; i++ {
		ch := name[i]
		plain = ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')
	}
	if plain && !reservedWords[name] {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// reservedWords are PostgreSQL keywords that cannot be used as a bare column
// or table name (the reserved and type_func_name categories of the grammar).
var reservedWords = map[string]bool{
	"all": true, "analyse": true, "analyze": true, "and": true, "any": true, "array": true, "as": true,
	"asc": true, "asymmetric": true, "authorization": true, "binary": true, "both": true, "case": true,
	"cast": true, "check": true, "collate": true, "collation": true, "column": true, "concurrently": true,
	"constraint": true, "create": true, "cross": true, "current_catalog": true, "current_date": true,
	"current_role": true, "current_schema": true, "current_time": true, "current_timestamp": true,
	"current_user": true, "default": true, "deferrable": true, "desc": true, "distinct": true, "do": true,
	"else": true, "end": true, "except": true, "false": true, "fetch": true, "for": true, "foreign": true,
	"freeze": true, "from": true, "full": true, "grant": true, "group": true, "having": true, "ilike": true,
	"in": true, "initially": true, "inner": true, "intersect": true, "into": true, "is": true,
	"isnull": true, "join": true, "lateral": true, "leading": true, "left": true, "like": true,
	"limit": true, "localtime": true, "localtimestamp": true, "natural": true, "not": true,
	"notnull": true, "null": true, "offset": true, "on": true, "only": true, "or": true, "order": true,
	"outer": true, "overlaps": true, "placing": true, "primary": true, "references": true,
	"returning": true, "right": true, "select": true, "session_user": true, "similar": true,
	"some": true, "symmetric": true, "system_user": true, "table": true, "tablesample": true, "then": true,
	"to": true, "trailing": true, "true": true, "union": true, "unique": true, "user": true,
	"using": true, "variadic": true, "verbose": true, "when": true, "where": true, "window": true,
	"with": true,
}

// Query is an INSERT ... ON CONFLICT statement seen in a query file or
// migration: what the on-conflict-hole rule matches against the unique
// indexes of its target table.
type Query struct {
	Pos  Pos
	File string
	// Schema (empty when unqualified) and Table name the INSERT's target as
	// written.
	Schema string
	Table  string
	// Target is the conflict target's key parts, ON CONFLICT (a, b); empty
	// for ON CONFLICT ON CONSTRAINT and for a bare ON CONFLICT DO NOTHING.
	Target []IndexPart
	// Where is the conflict target's WHERE, the predicate that lets a
	// partial unique index be inferred as the arbiter; nil when absent.
	Where Expr
	// Constraint is the name in ON CONFLICT ON CONSTRAINT name.
	Constraint string
	// DoUpdate is set for DO UPDATE, clear for DO NOTHING.
	DoUpdate bool
	// Columns is the INSERT's column list as written; nil when it has none,
	// and the values then fill the table's columns in order.
	Columns []string
	// Values says, for each position of the inserted rows, what every row
	// writes there; nil when the rows come from a SELECT or DEFAULT VALUES.
	Values []InsertValue
	// SQL is the statement's text as written, which a witness runs with
	// its parameters given values; "" for a statement inside a DO block.
	SQL string
	// Params are the parameters in SQL ($1, sqlc.arg(name), @name), in
	// order of appearance.
	Params []QueryParam
}

// QueryParam is one parameter of a query: where it is in Query.SQL (byte
// offsets), how it is written, and the VALUES position it fills (-1 when
// it is anywhere else: a SET, a WHERE, an expression).
type QueryParam struct {
	Start, End int
	Text       string
	Position   int
}

// Column returns the column of t that position i of the statement's VALUES
// writes, "" when there is none.
func (q Query) Column(t *Table, i int) string {
	if i < 0 {
		return ""
	}
	if q.Columns != nil {
		if i < len(q.Columns) {
			return q.Columns[i]
		}
		return ""
	}
	if i < len(t.Columns) {
		return t.Columns[i].Name
	}
	return ""
}

// InsertValue is what an INSERT writes into one column, as far as NULL
// goes.
type InsertValue int

const (
	// ValueUnknown is a parameter, an expression or DEFAULT: it may be NULL.
	ValueUnknown InsertValue = iota
	// ValueNull is NULL written out in at least one row.
	ValueNull
	// ValueNotNull is a constant other than NULL in every row.
	ValueNotNull
)

// Inserted returns what q writes into column of t, and whether q writes it
// at all: a column the statement leaves out gets its default.
func (q Query) Inserted(t *Table, column string) (InsertValue, bool) {
	cols := q.Columns
	if cols == nil && q.Values == nil {
		// INSERT INTO t SELECT ...: some leading columns, values unknown.
		return ValueUnknown, true
	}
	if cols == nil {
		for i, c := range t.Columns {
			if i >= len(q.Values) {
				break
			}
			cols = append(cols, c.Name)
		}
	}
	for i, c := range cols {
		if c != column {
			continue
		}
		if i < len(q.Values) {
			return q.Values[i], true
		}
		return ValueUnknown, true
	}
	return ValueUnknown, false
}
