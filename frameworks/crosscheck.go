package frameworks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// CrossCheck compares a schema file with the catalog replayed from the SQL
// migrations beside it, which is what lint checks. Every difference in what
// the rules read (tables, columns, NOT NULL, unique indexes) is a note at
// the schema file's line, or at the migration's for what only the SQL has:
// the schema file and the migrations should describe one database, and when
// they do not, the SQL is what the database got.
func CrossCheck(sql *catalog.Catalog, src *Source) []sqlparse.Diagnostic {
	own := catalog.New()
	r := sqlparse.NewReplayer(own)
	for _, st := range src.Statements {
		r.Apply(st)
	}
	name := src.Kind.fileWord()
	var out []sqlparse.Diagnostic
	note := func(pos catalog.Pos, format string, args ...any) {
		out = append(out, sqlparse.Diagnostic{Level: sqlparse.Note, Pos: pos, Message: fmt.Sprintf(format, args...)})
	}
	for _, t := range own.Tables() {
		other := sql.ResolveTable(t.Schema, t.Name)
		if other == nil {
			note(t.Pos, "%s is in %s but the migrations beside it do not create it", t.DisplayName(), name)
			continue
		}
		for _, c := range t.Columns {
			oc := other.Column(c.Name)
			switch {
			case oc == nil:
				note(c.Pos, "%s.%s is in %s but not in the migrations", t.DisplayName(), c.Name, name)
			case oc.IsNotNull() != c.IsNotNull():
				note(c.Pos, "%s.%s is %s in %s but %s in the migrations", t.DisplayName(), c.Name, nullWord(c), name, nullWord(oc))
			}
		}
		for _, c := range other.Columns {
			if t.Column(c.Name) == nil {
				note(c.Pos, "%s.%s is in the migrations but not in %s", t.DisplayName(), c.Name, name)
			}
		}
		for _, ix := range t.UniqueIndexes() {
			oix := other.Index(ix.Name)
			switch {
			case oix == nil:
				note(ix.Pos, "unique index %s on %s is in %s but not in the migrations", ix.Name, t.DisplayName(), name)
			case describe(oix) != describe(ix):
				note(ix.Pos, "unique index %s is %s in %s but %s in the migrations", ix.Name, describe(ix), name, describe(oix))
			}
		}
		for _, oix := range other.UniqueIndexes() {
			if t.Index(oix.Name) == nil {
				note(oix.Pos, "unique index %s on %s is in the migrations but not in %s%s", oix.Name, t.DisplayName(), name, src.Kind.cannotSay(oix))
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return out
}

func nullWord(c *catalog.Column) string {
	if c.IsNotNull() {
		return "NOT NULL"
	}
	return "nullable"
}

// describe is what a unique index enforces, for comparing two of them.
func describe(ix *catalog.Index) string {
	s := "(" + strings.Join(ix.PartNames(), ", ") + ")"
	if ix.NullsNotDistinct {
		s += " NULLS NOT DISTINCT"
	}
	if ix.Predicate != nil {
		s += " WHERE " + ix.Predicate.String()
	}
	return s
}

func (k Kind) fileWord() string {
	if k == Rails {
		return "schema.rb"
	}
	return "the Prisma schema"
}

// cannotSay explains why an index made by SQL is missing from a schema file
// when the schema language has no words for it.
func (k Kind) cannotSay(ix *catalog.Index) string {
	if k != Prisma {
		return ""
	}
	switch {
	case ix.NullsNotDistinct:
		return " (Prisma's schema cannot say NULLS NOT DISTINCT)"
	case ix.Predicate != nil:
		return " (Prisma's schema cannot declare a partial index before Prisma 7's partialIndexes preview)"
	}
	return ""
}
