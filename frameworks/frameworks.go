// Package frameworks reads the schema files that ORMs keep instead of SQL,
// Rails' db/schema.rb and Prisma's schema.prisma, and writes fixes in those
// frameworks' own language. It is the one hook the commands call; the readers
// live in frameworks/rails and frameworks/prisma.
//
// A schema file is translated into the SQL its framework sends to PostgreSQL
// (see the readers' package docs) and replayed by sqlparse into the same
// catalog as any migration, so the rules, names and suppressions are those
// of the database the framework builds. Beside SQL migrations
// (prisma/migrations, db/structure.sql) the SQL is what lint checks and the
// schema file is only compared with it (CrossCheck).
//
// Imports: catalog, audit, sqlparse and the two readers. Only cmd imports
// this package, and nothing below cmd imports the readers.
package frameworks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/frameworks/prisma"
	"github.com/idemcheck/idemcheck/frameworks/rails"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// Kind names a schema file format; it is shown where a migration layout
// would be.
type Kind string

const (
	Rails  Kind = "rails-schema"  // db/schema.rb
	Prisma Kind = "prisma-schema" // schema.prisma, or a folder of .prisma files
)

// KindOf tells a schema file by its name: schema.rb (Rails names it so, also
// for a second database's <name>_schema.rb) or any .prisma file.
func KindOf(path string) Kind {
	base := filepath.Base(path)
	switch {
	case base == "schema.rb" || strings.HasSuffix(base, "_schema.rb"):
		return Rails
	case strings.HasSuffix(base, ".prisma"):
		return Prisma
	}
	return ""
}

// Source is one schema file translated into SQL statements.
type Source struct {
	Path string
	Kind Kind
	// Files are the schema's files: Path alone, or every file of a
	// multi-file Prisma schema.
	Files []string
	// Statements are the SQL the framework would send, positioned at the
	// schema file's lines.
	Statements []sqlparse.Statement
	// Comments and Spans are what ignore directives are read from: a
	// directive covers the next construct of the file.
	Comments    []sqlparse.Comment
	Spans       []audit.Span
	Diagnostics []sqlparse.Diagnostic
	// Covers lists the SQL migrations (of the tree beside the schema file)
	// whose findings also get this framework's fixes.
	Covers []string

	rails  *rails.Schema
	prisma *prisma.Schema
}

// maxSchemaSize bounds one schema file, as for SQL files.
const maxSchemaSize = 64 << 20

// Read reads and translates a schema: one schema.rb, or the .prisma files
// of one schema. A file that cannot be read is an error naming it; what a
// file holds that cannot be translated comes back as diagnostics.
func Read(paths ...string) (*Source, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no schema file given")
	}
	kind := KindOf(paths[0])
	if kind == "" {
		return nil, fmt.Errorf("%s: not a schema.rb or .prisma file", paths[0])
	}
	var datas [][]byte
	for _, path := range paths {
		data, err := readFile(path)
		if err != nil {
			return nil, err
		}
		datas = append(datas, data)
	}
	if kind == Prisma && len(paths) > 1 {
		src := fromPrisma(prisma.ReadFiles(paths, datas))
		src.Files = paths
		return src, nil
	}
	return Translate(paths[0], kind, datas[0]), nil
}

func readFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if info.Size() > maxSchemaSize {
		return nil, fmt.Errorf("%s: larger than 64 MiB, the limit for one schema file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, fmt.Errorf("%s: empty file: no schema to check", path)
	}
	if strings.IndexByte(string(data), 0) >= 0 {
		return nil, fmt.Errorf("%s: binary file (NUL byte), not a schema", path)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not valid UTF-8", path)
	}
	return data, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Translate translates the content of a schema file of the given kind.
func Translate(path string, kind Kind, data []byte) *Source {
	src := &Source{Path: path, Kind: kind, Files: []string{path}}
	switch kind {
	case Rails:
		s := rails.Read(path, data)
		src.rails = s
		src.Statements, src.Comments, src.Diagnostics = s.Statements, s.Comments, s.Diagnostics
		for _, sp := range s.Spans {
			src.Spans = append(src.Spans, audit.Span{Start: sp[0], End: sp[1]})
		}
	case Prisma:
		return fromPrisma(prisma.Read(path, data))
	}
	return src
}

func fromPrisma(s *prisma.Schema) *Source {
	if _, shown, _ := prismaMigrations(s.File); shown != "" {
		s.MigrationsDir = shown
	}
	src := &Source{Path: s.File, Kind: Prisma, Files: []string{s.File}, prisma: s}
	src.Statements, src.Comments, src.Diagnostics = s.Statements, s.Comments, s.Diagnostics
	for _, sp := range s.Spans {
		src.Spans = append(src.Spans, audit.Span{Start: sp[0], End: sp[1]})
	}
	return src
}

// Replay applies the source's statements to a replayer and returns the
// translation's diagnostics and replay's, in file order.
func (s *Source) Replay(apply func(sqlparse.Statement) []sqlparse.Diagnostic) []sqlparse.Diagnostic {
	diags := append([]sqlparse.Diagnostic(nil), s.Diagnostics...)
	for _, st := range s.Statements {
		diags = append(diags, apply(st)...)
	}
	return diags
}

// Directives are the ignore directives the schema file's comments hold.
func (s *Source) Directives() []audit.Directive {
	comments := make([]audit.SourceComment, 0, len(s.Comments))
	for _, c := range s.Comments {
		comments = append(comments, audit.SourceComment{Text: c.Text, Pos: c.Pos})
	}
	return audit.FileDirectives(comments, s.Spans)
}
