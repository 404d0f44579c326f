// Package ddl is what the framework readers share to turn a schema written in
// another language (Rails' db/schema.rb, a Prisma schema) into the SQL
// statements PostgreSQL would receive from that framework: a builder that
// remembers, for every byte of the SQL it writes, which position of the
// schema file it came from, and the quoting those frameworks use.
//
// It writes SQL and positions only; parsing and replay stay in sqlparse, so
// a `where:` clause or a check expression goes through the same parser as a
// migration's SQL.
package ddl

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// Lines converts byte offsets of one source file into positions.
type Lines struct {
	file   string
	src    string
	starts []int
}

// NewLines indexes src, the content of file.
func NewLines(file, src string) *Lines {
	starts := []int{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &Lines{file: file, src: src, starts: starts}
}

// File is the display path positions carry.
func (l *Lines) File() string { return l.file }

// Pos returns the 1-based line and rune column of a byte offset.
func (l *Lines) Pos(offset int) catalog.Pos {
	if offset > len(l.src) {
		offset = len(l.src)
	}
	if offset < 0 {
		offset = 0
	}
	line := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > offset }) - 1
	col := utf8.RuneCountInString(l.src[l.starts[line]:offset]) + 1
	return catalog.Pos{File: l.file, Line: line + 1, Col: col}
}

// Text is a piece of source text (a string literal's content) with the
// source offset of each of its bytes, so that SQL copied from it keeps exact
// positions even after escapes and heredoc indentation were removed.
type Text struct {
	Value string
	// Offsets[i] is the source byte offset of Value[i]; it has one more
	// entry than Value, the offset just past the literal.
	Offsets []int
	Lines   *Lines
}

// At is the position of byte i of the text.
func (t Text) At(i int) catalog.Pos {
	if len(t.Offsets) == 0 {
		return catalog.Pos{}
	}
	if i < 0 {
		i = 0
	}
	if i >= len(t.Offsets) {
		i = len(t.Offsets) - 1
	}
	return t.Lines.Pos(t.Offsets[i])
}

// Builder writes one SQL statement and where each part of it came from.
type Builder struct {
	file string
	sb   strings.Builder
	segs []segment
}

// segment is a run of the SQL, from start on, that came either from one fixed
// position (SQL the reader wrote for a construct) or from a source text.
type segment struct {
	start int
	pos   catalog.Pos
	text  *Text
}

// NewBuilder starts a statement for file.
func NewBuilder(file string) *Builder { return &Builder{file: file} }

// Write appends SQL written for the construct at pos.
func (b *Builder) Write(pos catalog.Pos, sql ...string) {
	b.segs = append(b.segs, segment{start: b.sb.Len(), pos: pos})
	for _, s := range sql {
		b.sb.WriteString(s)
	}
}

// Copy appends a source text verbatim (an expression the schema file holds
// as a string), keeping its own positions.
func (b *Builder) Copy(t Text) {
	tt := t
	b.segs = append(b.segs, segment{start: b.sb.Len(), text: &tt})
	b.sb.WriteString(t.Value)
}

// Len is the length of the SQL written so far.
func (b *Builder) Len() int { return b.sb.Len() }

// Statement is the SQL written so far as a statement whose positions point
// into the schema file.
func (b *Builder) Statement() sqlparse.Statement {
	segs := append([]segment(nil), b.segs...)
	return sqlparse.Translated(b.file, b.sb.String(), func(offset int) catalog.Pos {
		i := sort.Search(len(segs), func(i int) bool { return segs[i].start > offset }) - 1
		if i < 0 {
			if len(segs) == 0 {
				return catalog.Pos{File: b.file}
			}
			i = 0
		}
		s := segs[i]
		if s.text != nil {
			return s.text.At(offset - s.start)
		}
		return s.pos
	})
}

// Ident quotes an identifier the way the frameworks do: always, so that a
// column named like a keyword is still a column.
func Ident(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// Qualified quotes a possibly schema-qualified name ("audit.events").
func Qualified(name string) string {
	if schema, rel, ok := strings.Cut(name, "."); ok {
		return Ident(schema) + "." + Ident(rel)
	}
	return Ident(name)
}

// Literal quotes a string constant.
func Literal(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// Idents quotes and joins a list of identifiers with ", ".
func Idents(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = Ident(n)
	}
	return strings.Join(q, ", ")
}
