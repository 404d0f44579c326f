// Package rails reads Rails' db/schema.rb, the schema dumper's output for
// PostgreSQL (Rails 5 to 8), without running Ruby, and writes Rails
// migrations that fix what idemcheck finds in it.
//
// Reading translates each construct into the SQL that Rails' PostgreSQL
// adapter sends when it loads the schema (create_table becomes CREATE TABLE,
// t.index becomes CREATE INDEX, ...), with every byte of that SQL mapped back
// to its line of schema.rb. The statements are replayed by sqlparse like any
// migration, so `where:` and check expressions go through PostgreSQL's own
// parser and the catalog holds the names the loaded database holds.
//
// The package imports catalog, audit and sqlparse; only the frameworks
// package above it imports it.
package rails

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/frameworks/internal/ddl"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// Schema is a schema.rb translated into SQL statements.
type Schema struct {
	File string
	// Version is the Rails version of ActiveRecord::Schema[7.1] ("7.1"), or
	// "" for ActiveRecord::Schema.define (Rails 6.1 and older).
	Version    string
	Statements []sqlparse.Statement
	// Spans are the extents of the Ruby calls, in file order, for ignore
	// directives: a comment covers the next call.
	Spans       [][2]catalog.Pos
	Comments    []sqlparse.Comment
	Diagnostics []sqlparse.Diagnostic
}

// AtLeast reports whether the schema's Rails version is at least
// major.minor; a schema without a version is older than 7.0.
func (s *Schema) AtLeast(major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(s.Version, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}

// Read translates the schema.rb at path (display path) with content src.
func Read(path string, src []byte) *Schema {
	lines := ddl.NewLines(path, string(src))
	toks, comments := lex(string(src), lines)
	p := &parser{src: string(src), toks: toks}
	calls := p.statements()
	for !p.is(tEOF, "") { // a stray `end` or `}` at the top level
		p.errs = append(p.errs, parseError{off: p.tok().off, msg: "unexpected " + describe(p.tok())})
		p.next()
		calls = append(calls, p.statements()...)
	}
	r := &reader{s: &Schema{File: path}, lines: lines, tables: map[string]*tableInfo{}}
	for _, c := range comments {
		r.s.Comments = append(r.s.Comments, sqlparse.Comment{Text: c.text, Pos: lines.Pos(c.off)})
	}
	for _, e := range p.errs {
		r.s.Diagnostics = append(r.s.Diagnostics, sqlparse.Diagnostic{Level: sqlparse.Error, Pos: lines.Pos(e.off),
			Message: "cannot read this line of schema.rb: " + e.msg + "; the rest of the file is still checked"})
	}
	r.top(calls)
	sort.SliceStable(r.s.Diagnostics, func(i, j int) bool {
		a, b := r.s.Diagnostics[i].Pos, r.s.Diagnostics[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return r.s
}

// reader holds what translation needs across calls.
type reader struct {
	s      *Schema
	lines  *ddl.Lines
	tables map[string]*tableInfo
}

// tableInfo is what later calls need to know about a table: its columns, so
// that add_foreign_key can name the column Rails would pick.
type tableInfo struct {
	columns map[string]bool
}

func (r *reader) pos(off int) catalog.Pos { return r.lines.Pos(off) }

func (r *reader) note(off int, format string, args ...any) {
	r.s.Diagnostics = append(r.s.Diagnostics, sqlparse.Diagnostic{Level: sqlparse.Note, Pos: r.pos(off), Message: fmt.Sprintf(format, args...)})
}

func (r *reader) fail(off int, format string, args ...any) {
	r.s.Diagnostics = append(r.s.Diagnostics, sqlparse.Diagnostic{Level: sqlparse.Error, Pos: r.pos(off), Message: fmt.Sprintf(format, args...)})
}

func (r *reader) span(c call) {
	end := c.end - 1
	if end < c.off {
		end = c.off
	}
	r.s.Spans = append(r.s.Spans, [2]catalog.Pos{r.pos(c.off), r.pos(end)})
}

func (r *reader) emit(b *ddl.Builder) { r.s.Statements = append(r.s.Statements, b.Statement()) }

func (r *reader) builder() *ddl.Builder { return ddl.NewBuilder(r.s.File) }

// top finds ActiveRecord::Schema.define (or Schema[x.y].define) and reads
// its block; calls outside it are read as if inside.
func (r *reader) top(calls []call) {
	for _, c := range calls {
		if c.name == "define" && strings.HasSuffix(c.recv, "Schema") && c.block != nil {
			if len(c.subscript) == 1 {
				r.s.Version = c.subscript[0].text
			}
			r.internalTables(c)
			r.schemaCalls(c.block.calls)
			continue
		}
		r.schemaCall(c)
	}
}

// internalTables are the two tables Rails creates when it loads a schema,
// which the dump leaves out: a database loaded from schema.rb has them.
func (r *reader) internalTables(define call) {
	at := r.pos(define.off)
	for _, sql := range []string{
		`CREATE TABLE IF NOT EXISTS "schema_migrations" ("version" character varying NOT NULL PRIMARY KEY)`,
		`CREATE TABLE IF NOT EXISTS "ar_internal_metadata" ("key" character varying NOT NULL PRIMARY KEY, "value" character varying, ` +
			`"created_at" timestamp(6) NOT NULL, "updated_at" timestamp(6) NOT NULL)`,
	} {
		b := r.builder()
		b.Write(at, sql)
		r.emit(b)
	}
}

func (r *reader) schemaCalls(calls []call) {
	for _, c := range calls {
		r.schemaCall(c)
	}
}

// schemaCall translates one statement of the define block: the flat switch
// over what the schema dumper writes, plus the calls a fix adds.
func (r *reader) schemaCall(c call) {
	if c.recv != "" {
		r.note(c.off, "%s.%s is not something the schema dumper writes; skipped", c.recv, c.name)
		return
	}
	r.span(c)
	switch c.name {
	case "create_table":
		r.createTable(c)
	case "add_index":
		r.addIndex(c)
	case "remove_index":
		r.removeIndex(c)
	case "rename_index":
		r.renameIndex(c)
	case "change_column_null":
		r.changeColumnNull(c)
	case "add_check_constraint":
		r.addCheck(c)
	case "remove_check_constraint":
		r.removeCheck(c)
	case "validate_check_constraint", "validate_constraint":
		r.validateConstraint(c)
	case "add_unique_constraint":
		r.addUniqueConstraint(c)
	case "add_foreign_key":
		r.addForeignKey(c)
	case "create_enum":
		r.createEnum(c)
	case "enable_extension":
		r.enableExtension(c)
	case "create_schema":
		r.simple(c, "CREATE SCHEMA IF NOT EXISTS %s")
	case "execute":
		r.execute(c)
	case "disable_ddl_transaction!":
		// Written by a fix's migration; means nothing to the schema.
	default:
		r.note(c.off, "%s is not read by idemcheck (it changes nothing idemcheck models, or it comes from a gem); skipped", c.name)
	}
}

// arg returns positional argument i as a string, reporting when it is
// missing.
func (r *reader) arg(c call, i int, what string) (value, bool) {
	if i >= len(c.args) || (c.args[i].kind != vString && c.args[i].kind != vSymbol) {
		r.fail(c.off, "%s: expected the %s as argument %d", c.name, what, i+1)
		return value{}, false
	}
	return c.args[i], true
}

func (r *reader) simple(c call, format string) {
	name, ok := r.arg(c, 0, "name")
	if !ok {
		return
	}
	b := r.builder()
	b.Write(r.pos(c.off), fmt.Sprintf(format, ddl.Ident(name.text)))
	r.emit(b)
}

func (r *reader) enableExtension(c call) {
	name, ok := r.arg(c, 0, "extension name")
	if !ok {
		return
	}
	ext := name.text
	schema := ""
	if s, e, found := strings.Cut(ext, "."); found { // Rails 7.1: "schema.extension"
		schema, ext = s, e
	}
	sql := "CREATE EXTENSION IF NOT EXISTS " + ddl.Ident(ext)
	if schema != "" {
		sql += " SCHEMA " + ddl.Ident(schema)
	}
	b := r.builder()
	b.Write(r.pos(c.off), sql)
	r.emit(b)
}

func (r *reader) createEnum(c call) {
	name, ok := r.arg(c, 0, "enum name")
	if !ok {
		return
	}
	if len(c.args) < 2 || c.args[1].kind != vArray {
		r.fail(c.off, "create_enum %s: expected the values as an array", name.text)
		return
	}
	var vals []string
	for _, v := range c.args[1].strings() {
		vals = append(vals, ddl.Literal(v))
	}
	b := r.builder()
	b.Write(r.pos(c.off), "CREATE TYPE ", ddl.Qualified(name.text), " AS ENUM (", strings.Join(vals, ", "), ")")
	r.emit(b)
}

// execute parses the SQL string the way any migration's SQL is parsed, each
// statement keeping the position of its text inside the Ruby string.
func (r *reader) execute(c call) {
	if len(c.args) != 1 || c.args[0].kind != vString {
		r.note(c.off, "execute with something other than a string literal cannot be read; skipped")
		return
	}
	text := c.args[0].str
	res := sqlparse.Split(sqlparse.Input{Path: r.s.File, Text: text.Value})
	for _, d := range res.Diagnostics {
		d.Pos = text.At(offsetOf(text.Value, d.Pos))
		r.s.Diagnostics = append(r.s.Diagnostics, d)
	}
	for _, st := range res.Statements {
		base := st.Offset
		t := *text
		r.s.Statements = append(r.s.Statements, sqlparse.Translated(r.s.File, st.Text, func(off int) catalog.Pos {
			return t.At(base + off)
		}))
	}
}

// offsetOf converts a line:col position inside s back to a byte offset.
func offsetOf(s string, p catalog.Pos) int {
	off := 0
	for line := 1; line < p.Line; line++ {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return len(s)
		}
		off += i + 1
	}
	for col := 1; col < p.Col && off < len(s); col++ {
		off++
	}
	return off
}
