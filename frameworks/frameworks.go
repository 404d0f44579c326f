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
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
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

// Read reads and translates the schema file at path. A file that cannot be
// read is an error naming it; what the file holds that cannot be translated
// comes back as diagnostics.
func Read(path string) (*Source, error) {
	kind := KindOf(path)
	if kind == "" {
		return nil, fmt.Errorf("%s: not a schema.rb or .prisma file", path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if info.Size() > maxSchemaSize {
		return nil, fmt.Errorf("%s: larger than 64 MiB, the limit for one schema file", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return Translate(path, kind, data), nil
}

// Translate translates the content of a schema file of the given kind.
func Translate(path string, kind Kind, data []byte) *Source {
	src := &Source{Path: path, Kind: kind}
	switch kind {
	case Rails:
		s := rails.Read(path, data)
		src.rails = s
		src.Statements, src.Comments, src.Diagnostics = s.Statements, s.Comments, s.Diagnostics
		for _, sp := range s.Spans {
			src.Spans = append(src.Spans, audit.Span{Start: sp[0], End: sp[1]})
		}
	case Prisma:
		s := prisma.Read(path, data)
		src.prisma = s
		src.Statements, src.Comments, src.Diagnostics = s.Statements, s.Comments, s.Diagnostics
		for _, sp := range s.Spans {
			src.Spans = append(src.Spans, audit.Span{Start: sp[0], End: sp[1]})
		}
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

// Load reads schema files and replays them into cat, returning the sources
// (nil for a file that could not be read) and every diagnostic.
func Load(paths []string, cat *catalog.Catalog) ([]*Source, []sqlparse.Diagnostic) {
	r := sqlparse.NewReplayer(cat)
	var out []*Source
	var diags []sqlparse.Diagnostic
	for _, p := range paths {
		src, err := Read(p)
		if err != nil {
			diags = append(diags, sqlparse.Diagnostic{Level: sqlparse.Error, Message: err.Error()})
			continue
		}
		out = append(out, src)
		diags = append(diags, src.Replay(r.Apply)...)
	}
	return out, diags
}
