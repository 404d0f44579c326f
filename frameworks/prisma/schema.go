// Package prisma reads a Prisma schema (provider postgresql) and writes the
// fixes a Prisma project applies: a SQL migration made with `prisma migrate
// dev --create-only`, and schema edits.
//
// Reading translates the schema into the SQL that `prisma migrate` generates
// for it (CREATE TYPE for enums, CREATE TABLE, CREATE [UNIQUE] INDEX, ALTER
// TABLE ... FOREIGN KEY), with @map and @@map applied and Prisma's own names
// for keys and indexes (<table>_pkey, <table>_<columns>_key, _idx, _fkey, cut
// to 63 bytes as Prisma cuts them), so a finding names the object that
// `inspect` finds on the migrated database. Every byte of that SQL is mapped
// back to the schema line it came from.
//
// The package imports catalog, audit and sqlparse; only the frameworks
// package above it imports it.
package prisma

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/frameworks/internal/ddl"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// Schema is a Prisma schema translated into SQL statements.
type Schema struct {
	File        string
	Statements  []sqlparse.Statement
	Spans       [][2]catalog.Pos
	Comments    []sqlparse.Comment
	Diagnostics []sqlparse.Diagnostic
	// Models maps "schema.table" (the database's names) to the model that
	// creates it, for fixes written in the schema's own words.
	Models map[string]*Model
	// MigrationsDir is the migrations folder as the project names it
	// (prisma/migrations, or its Prisma config's migrations path), where a
	// fix's SQL migration goes; "" is prisma/migrations.
	MigrationsDir string
}

// Model is what a fix needs to know about one model.
type Model struct {
	Name  string
	Table string
	Pos   catalog.Pos
	// Fields maps a column name to its field.
	Fields map[string]*Field
}

// Field is one scalar field.
type Field struct {
	Name     string
	Column   string
	Type     string // the Prisma type as written: String, Int, Role
	Optional bool
	Pos      catalog.Pos
}

// maxIdent is PostgreSQL's identifier limit, which Prisma's generated names
// respect.
const maxIdent = 63

// Read translates the schema at path (display path) with content src.
func Read(path string, src []byte) *Schema {
	return ReadFiles([]string{path}, [][]byte{src})
}

// ReadFiles translates a multi-file schema (a folder of .prisma files, as
// prismaSchemaFolder and Prisma 6.6+ allow) as one schema.
func ReadFiles(paths []string, srcs [][]byte) *Schema {
	r := &reader{s: &Schema{Models: map[string]*Model{}}, models: map[string]*modelInfo{}, enums: map[string]*enumInfo{}}
	if len(paths) > 0 {
		r.s.File = paths[0]
	}
	for i, path := range paths {
		lines := ddl.NewLines(path, string(srcs[i]))
		toks, comments := lex(string(srcs[i]), lines)
		p := &parser{toks: toks}
		for _, b := range p.file() {
			r.blocks = append(r.blocks, fileBlock{b: b, lines: lines})
		}
		for _, c := range comments {
			r.s.Comments = append(r.s.Comments, sqlparse.Comment{Text: c.text, Pos: lines.Pos(c.off)})
		}
		for _, e := range p.errs {
			r.s.Diagnostics = append(r.s.Diagnostics, sqlparse.Diagnostic{Level: sqlparse.Error, Pos: lines.Pos(e.off),
				Message: "cannot read this line of the Prisma schema: " + e.msg + "; the rest of the file is still checked"})
		}
	}
	r.translate()
	sort.SliceStable(r.s.Diagnostics, func(i, j int) bool {
		a, b := r.s.Diagnostics[i].Pos, r.s.Diagnostics[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	sort.SliceStable(r.s.Spans, func(i, j int) bool {
		a, b := r.s.Spans[i][0], r.s.Spans[j][0]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return r.s
}

type fileBlock struct {
	b     *block
	lines *ddl.Lines
}

type reader struct {
	s      *Schema
	blocks []fileBlock
	models map[string]*modelInfo
	enums  map[string]*enumInfo
	// multiSchema is set when the datasource lists schemas; models without
	// @@schema then still go to the default schema.
	provider string
	// emulated is relationMode = "prisma": Prisma keeps the relations in
	// the client, and migrate writes no foreign key.
	emulated bool
}

type modelInfo struct {
	fb     fileBlock
	schema string
	table  string
	// columns maps a field name to its column.
	columns map[string]string
	fields  map[string]*field
	pk      []string // field names of the primary key
}

type enumInfo struct {
	schema, name string
}

func (r *reader) diag(level sqlparse.Level, lines *ddl.Lines, off int, format string, args ...any) {
	r.s.Diagnostics = append(r.s.Diagnostics, sqlparse.Diagnostic{Level: level, Pos: lines.Pos(off), Message: fmt.Sprintf(format, args...)})
}

func (r *reader) translate() {
	// First pass: names of everything, so that fields can refer to models
	// and enums declared later.
	for _, fb := range r.blocks {
		b := fb.b
		switch b.kind {
		case "datasource":
			for _, p := range b.props {
				if p.key == "relationMode" && p.val.kind == vString && p.val.text == "prisma" {
					r.emulated = true
				}
				if p.key == "provider" {
					r.provider = p.val.text
					if p.val.text != "postgresql" && p.val.text != "postgres" {
						r.diag(sqlparse.Error, fb.lines, p.val.off,
							"provider %q: idemcheck reads PostgreSQL schemas only (provider \"postgresql\")", p.val.text)
					}
				}
			}
		case "model":
			m := &modelInfo{fb: fb, schema: schemaOf(b), table: mappedName(b.attr("map"), b.name),
				columns: map[string]string{}, fields: map[string]*field{}}
			for i := range b.fields {
				f := &b.fields[i]
				m.fields[f.name] = f
				m.columns[f.name] = mappedName(f.attr("map"), f.name)
			}
			r.models[b.name] = m
		case "enum":
			r.enums[b.name] = &enumInfo{schema: schemaOf(b), name: mappedName(b.attr("map"), b.name)}
		}
	}
	if r.provider != "" && r.provider != "postgresql" && r.provider != "postgres" {
		return
	}
	r.createSchemas()
	for _, fb := range r.blocks {
		if fb.b.kind == "enum" {
			r.createEnum(fb)
		}
	}
	var later []func()
	for _, fb := range r.blocks {
		switch fb.b.kind {
		case "model":
			later = append(later, r.createTable(fb)...)
		case "view", "type":
			r.diag(sqlparse.Note, fb.lines, fb.b.off, "%s %s is not a table; skipped", fb.b.kind, fb.b.name)
		}
	}
	r.implicitManyToMany()
	for _, f := range later {
		f()
	}
	if !r.emulated {
		r.foreignKeys()
	}
}

// schemaOf is a block's @@schema, or "" for the default schema.
func schemaOf(b *block) string {
	if a := b.attr("schema"); a != nil {
		if v, ok := a.arg("", 0); ok {
			return v.text
		}
	}
	return ""
}

// mappedName is the database name: the @map/@@map argument, else the name.
func mappedName(a *attribute, name string) string {
	if a == nil {
		return name
	}
	if v, ok := a.arg("name", 0); ok && v.kind == vString {
		return v.text
	}
	return name
}

func qualified(schema, name string) string {
	if schema == "" {
		return ddl.Ident(name)
	}
	return ddl.Ident(schema) + "." + ddl.Ident(name)
}

func (r *reader) createSchemas() {
	seen := map[string]bool{}
	for _, fb := range r.blocks {
		s := schemaOf(fb.b)
		if s == "" || seen[s] || s == "public" {
			continue
		}
		seen[s] = true
		b := ddl.NewBuilder(fb.lines.File())
		b.Write(fb.lines.Pos(fb.b.attr("schema").off), "CREATE SCHEMA IF NOT EXISTS ", ddl.Ident(s))
		r.s.Statements = append(r.s.Statements, b.Statement())
	}
}

func (r *reader) createEnum(fb fileBlock) {
	e := r.enums[fb.b.name]
	var vals []string
	for i := range fb.b.fields {
		v := &fb.b.fields[i]
		vals = append(vals, ddl.Literal(mappedName(v.attr("map"), v.name)))
	}
	b := ddl.NewBuilder(fb.lines.File())
	b.Write(fb.lines.Pos(fb.b.off), "CREATE TYPE ", qualified(e.schema, e.name), " AS ENUM (", strings.Join(vals, ", "), ")")
	r.s.Statements = append(r.s.Statements, b.Statement())
	r.span(fb, fb.b.off, fb.b.off)
}

func (r *reader) span(fb fileBlock, start, end int) {
	r.s.Spans = append(r.s.Spans, [2]catalog.Pos{fb.lines.Pos(start), fb.lines.Pos(end)})
}

// scalarTypes are Prisma's scalar types and the PostgreSQL type migrate
// gives each.
var scalarTypes = map[string]string{
	"String": "TEXT", "Int": "INTEGER", "BigInt": "BIGINT", "Float": "DOUBLE PRECISION",
	"Decimal": "DECIMAL(65,30)", "DateTime": "TIMESTAMP(3)", "Boolean": "BOOLEAN", "Json": "JSONB",
	"Bytes": "BYTEA",
}

// isScalar tells a column from a relation field.
func (r *reader) isScalar(f *field) bool {
	if _, ok := scalarTypes[f.typ]; ok {
		return true
	}
	if f.typ == "Unsupported" {
		return true
	}
	_, isEnum := r.enums[f.typ]
	return isEnum
}

// createTable writes CREATE TABLE for a model and returns the index
// statements, which migrate writes after every table.
func (r *reader) createTable(fb fileBlock) []func() {
	b := fb.b
	m := r.models[b.name]
	lines := fb.lines
	sb := ddl.NewBuilder(lines.File())
	at := lines.Pos(b.off)
	sb.Write(at, "CREATE TABLE ", qualified(m.schema, m.table), " (")
	n := 0
	info := &Model{Name: b.name, Table: m.table, Pos: at, Fields: map[string]*Field{}}
	key := m.table
	if m.schema != "" {
		key = m.schema + "." + m.table
	}
	r.s.Models[key] = info
	r.span(fb, b.off, b.off)
	var later []func()
	for i := range b.fields {
		f := &b.fields[i]
		if !r.isScalar(f) {
			if _, isModel := r.models[f.typ]; !isModel {
				r.diag(sqlparse.Note, lines, f.off, "field %s has type %s, which is neither a scalar, an enum nor a model; skipped", f.name, f.typ)
			}
			continue
		}
		r.span(fb, f.off, f.end)
		fat := lines.Pos(f.off)
		col := m.columns[f.name]
		info.Fields[col] = &Field{Name: f.name, Column: col, Type: f.typ, Optional: f.optional, Pos: fat}
		if n > 0 {
			sb.Write(fat, ",\n    ")
		}
		n++
		sb.Write(fat, ddl.Ident(col), " ", r.columnType(f, lines))
		if !f.optional && !f.list {
			sb.Write(fat, " NOT NULL")
		}
		if a := f.attr("id"); a != nil {
			m.pk = []string{f.name}
		}
		r.unknownFieldAttrs(fb, f)
		if a := f.attr("unique"); a != nil {
			a := a
			later = append(later, func() { r.index(fb, m, a, []arg{{val: val{kind: vName, text: f.name}}}, true) })
		}
	}
	var pkAttr *attribute
	if a := b.attr("id"); a != nil {
		pkAttr = a
		if v, ok := a.arg("fields", 0); ok {
			m.pk = nil
			for _, it := range v.refs() {
				m.pk = append(m.pk, it.text)
			}
		}
	}
	if len(m.pk) > 0 {
		name := pkName(m.table)
		pkAt := at
		if pkAttr != nil {
			pkAt = lines.Pos(pkAttr.off)
			r.span(fb, pkAttr.off, pkAttr.end)
			if v, ok := pkAttr.arg("map", -1); ok {
				name = v.text
			}
		} else if f := m.fields[m.pk[0]]; f != nil {
			pkAt = lines.Pos(f.off)
			if a := f.attr("id"); a != nil {
				if v, ok := a.arg("map", -1); ok {
					name = v.text
				}
			}
		}
		sb.Write(pkAt, ",\n\n    CONSTRAINT ", ddl.Ident(name), " PRIMARY KEY (", ddl.Idents(r.columnsOf(m, m.pk, lines, pkAt)), ")")
	}
	sb.Write(at, "\n)")
	r.s.Statements = append(r.s.Statements, sb.Statement())
	for i := range b.attrs {
		a := &b.attrs[i]
		switch a.name {
		case "unique", "index":
			r.span(fb, a.off, a.end)
			fields, _ := a.arg("fields", 0)
			later = append(later, func() { r.index(fb, m, a, listArgs(fields), a.name == "unique") })
		case "id", "map", "schema", "ignore":
		default:
			r.diag(sqlparse.Note, lines, a.off, "@@%s is not read by idemcheck; skipped", a.name)
		}
	}
	return later
}

// fieldAttrs are the field attributes a model's scalar field may carry
// that idemcheck reads or knows to change nothing in the tables it models
// (@updatedAt and @ignore keep the column; @db.* is matched apart).
var fieldAttrs = map[string]bool{"id": true, "unique": true, "default": true, "map": true, "relation": true,
	"updatedAt": true, "ignore": true}

// unknownFieldAttrs notes each attribute of f that is none of fieldAttrs,
// with its line: Prisma may accept it (a preview feature, another
// connector's), and what it changes is then not in the model.
func (r *reader) unknownFieldAttrs(fb fileBlock, f *field) {
	for i := range f.attrs {
		a := &f.attrs[i]
		if fieldAttrs[a.name] || strings.HasPrefix(a.name, "db.") {
			continue
		}
		r.diag(sqlparse.Note, fb.lines, a.off, "@%s on field %s is not read by idemcheck; skipped", a.name, f.name)
	}
}

// listArgs turns [a, b(sort: Desc)] (or a lone a) into one argument per
// item, the item's own arguments kept.
func listArgs(v val) []arg {
	var out []arg
	for _, it := range v.refs() {
		out = append(out, arg{val: it})
	}
	return out
}

// columnsOf maps field names to column names, reporting unknown fields.
func (r *reader) columnsOf(m *modelInfo, fields []string, lines *ddl.Lines, at catalog.Pos) []string {
	var out []string
	for _, f := range fields {
		col, ok := m.columns[f]
		if !ok {
			r.s.Diagnostics = append(r.s.Diagnostics, sqlparse.Diagnostic{Level: sqlparse.Error, Pos: at,
				Message: fmt.Sprintf("model %s has no field %s", m.fb.b.name, f)})
			col = f
		}
		out = append(out, col)
	}
	return out
}

// columnType is the PostgreSQL type migrate writes for a scalar field:
// @db.* when given, else the scalar's default; autoincrement() makes a
// serial.
func (r *reader) columnType(f *field, lines *ddl.Lines) string {
	typ := scalarTypes[f.typ]
	if e, ok := r.enums[f.typ]; ok {
		typ = qualified(e.schema, e.name)
	}
	if f.typ == "Unsupported" && len(f.typeArgs) == 1 {
		typ = f.typeArgs[0].val.text
	}
	for _, a := range f.attrs {
		if native, ok := strings.CutPrefix(a.name, "db."); ok {
			typ = nativeType(native, a.args)
		}
	}
	if d := f.attr("default"); d != nil {
		if v, ok := d.arg("value", 0); ok && v.kind == vCall && v.text == "autoincrement" {
			switch typ {
			case "INTEGER":
				typ = "SERIAL"
			case "BIGINT":
				typ = "BIGSERIAL"
			case "SMALLINT":
				typ = "SMALLSERIAL"
			}
		}
	}
	if f.list {
		typ += "[]"
	}
	return typ
}

// nativeType renders @db.VarChar(255) as VARCHAR(255).
func nativeType(name string, args []arg) string {
	names := map[string]string{"DoublePrecision": "DOUBLE PRECISION", "Timestamptz": "TIMESTAMPTZ", "Timetz": "TIMETZ",
		"JsonB": "JSONB", "ByteA": "BYTEA", "VarBit": "VARBIT", "VarChar": "VARCHAR"}
	t, ok := names[name]
	if !ok {
		t = strings.ToUpper(name)
	}
	if len(args) > 0 {
		var as []string
		for _, a := range args {
			as = append(as, a.val.text)
		}
		t += "(" + strings.Join(as, ",") + ")"
	}
	return t
}

// index writes CREATE [UNIQUE] INDEX for @unique, @@unique or @@index.
func (r *reader) index(fb fileBlock, m *modelInfo, a *attribute, parts []arg, unique bool) {
	lines := fb.lines
	at := lines.Pos(a.off)
	if len(parts) == 0 {
		r.diag(sqlparse.Note, lines, a.off, "@@%s names no field idemcheck can read; skipped", a.name)
		return
	}
	var cols []string
	var rendered []string
	for _, p := range parts {
		col, ok := m.columns[p.val.text]
		if !ok {
			r.diag(sqlparse.Error, lines, p.val.off, "model %s has no field %s", fb.b.name, p.val.text)
			return
		}
		cols = append(cols, col)
		q := ddl.Ident(col)
		for _, sub := range p.val.args {
			switch sub.key {
			case "ops":
				q += " " + opclass(sub.val)
			case "sort":
				if sub.val.text == "Desc" {
					q += " DESC"
				}
			}
		}
		if s, ok := a.arg("sort", -1); ok && len(parts) == 1 && s.text == "Desc" {
			q += " DESC"
		}
		rendered = append(rendered, q)
	}
	suffix := "_idx"
	if unique {
		suffix = "_key"
	}
	name := indexName(m.table, cols, suffix)
	if v, ok := a.arg("map", -1); ok {
		name = v.text
	} else if v, ok := a.arg("name", -1); ok && !unique && v.kind == vString {
		// On @@index, name: is the database name (the form of Prisma 2,
		// still accepted); on @@unique it names the client's compound key.
		name = v.text
	}
	b := ddl.NewBuilder(lines.File())
	b.Write(at, "CREATE ")
	if unique {
		b.Write(at, "UNIQUE ")
	}
	b.Write(at, "INDEX ", ddl.Ident(name), " ON ", qualified(m.schema, m.table))
	if v, ok := a.arg("type", -1); ok && v.text != "BTree" {
		b.Write(at, " USING ", strings.ToUpper(v.text))
	}
	b.Write(at, "(", strings.Join(rendered, ", "), ")")
	if v, ok := a.arg("where", -1); ok {
		if !r.where(b, at, m, v) {
			r.diag(sqlparse.Note, lines, v.off, "this where: form is not read by idemcheck; the index is read as not partial")
		}
	}
	r.s.Statements = append(r.s.Statements, b.Statement())
}

// where writes the partial index predicate of Prisma 7's partialIndexes
// preview: raw("SQL"), or an object of field conditions.
func (r *reader) where(b *ddl.Builder, at catalog.Pos, m *modelInfo, v val) bool {
	switch v.kind {
	case vCall:
		if v.text != "raw" || len(v.args) != 1 || v.args[0].val.kind != vString {
			return false
		}
		b.Write(at, " WHERE ")
		b.Copy(*v.args[0].val.str)
		return true
	case vObject:
		var conds []string
		for _, e := range v.args {
			col, ok := m.columns[e.key]
			if !ok {
				return false
			}
			c, ok := condition(ddl.Ident(col), e.val)
			if !ok {
				return false
			}
			conds = append(conds, c)
		}
		if len(conds) == 0 {
			return false
		}
		b.Write(at, " WHERE ", strings.Join(conds, " AND "))
		return true
	}
	return false
}

// condition renders one field condition of a where object: a value, null,
// or { not: value }.
func condition(col string, v val) (string, bool) {
	lit := func(v val) (string, bool) {
		switch v.kind {
		case vString:
			return ddl.Literal(v.text), true
		case vNumber:
			return v.text, true
		case vName:
			if v.text == "true" || v.text == "false" {
				return v.text, true
			}
		}
		return "", false
	}
	if v.kind == vName && v.text == "null" {
		return col + " IS NULL", true
	}
	if v.kind == vObject && len(v.args) == 1 && v.args[0].key == "not" {
		inner := v.args[0].val
		if inner.kind == vName && inner.text == "null" {
			return col + " IS NOT NULL", true
		}
		l, ok := lit(inner)
		return col + " <> " + l, ok
	}
	l, ok := lit(v)
	return col + " = " + l, ok
}

// opclass renders ops: JsonbPathOps as jsonb_path_ops, raw("...") as is.
func opclass(v val) string {
	if v.kind == vCall && v.text == "raw" && len(v.args) == 1 {
		return v.args[0].val.text
	}
	var sb strings.Builder
	for i, c := range v.text {
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				sb.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

// indexName is Prisma's default: <table>_<columns>_<suffix>, the part before
// the suffix cut so that the whole fits in 63 bytes.
func indexName(table string, cols []string, suffix string) string {
	name := table + "_" + strings.Join(cols, "_")
	if len(name) >= maxIdent-len(suffix) {
		name = truncateBytes(name, maxIdent-len(suffix))
	}
	return name + suffix
}

func pkName(table string) string {
	if len(table) >= maxIdent-5 {
		table = truncateBytes(table, maxIdent-5)
	}
	return table + "_pkey"
}

func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
