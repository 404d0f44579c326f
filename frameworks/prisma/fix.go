package prisma

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/frameworks/internal/ddl"
)

// Fixes writes each SQL fix of a finding on table t the way a Prisma project
// applies it. Prisma's schema cannot say NULLS NOT DISTINCT, and before
// Prisma 7's partialIndexes preview it cannot declare a partial index
// either, so a fix that adds or rebuilds an index is a SQL migration made
// with `prisma migrate dev --create-only`; making the field required is an
// edit of the schema, which migrate turns into SET NOT NULL. The order is
// docs/rules.md's: keep NULL meaningful first, the required field last.
func (s *Schema) Fixes(t *catalog.Table, cols []string, sqlFixes []audit.Fix) []audit.Fix {
	model := s.Models[t.Name]
	if model == nil {
		model = s.Models[t.Schema+"."+t.Name]
	}
	type ranked struct {
		kind ddl.Kind
		fix  audit.Fix
	}
	var out []ranked
	for _, f := range sqlFixes {
		if f.Lang != "" {
			continue
		}
		effects := ddl.Effects(t, f.SQL)
		kind := ddl.Classify(effects)
		if kind == ddl.NotNull && model != nil {
			if fix, ok := requiredFix(model, cols, f); ok {
				out = append(out, ranked{kind, fix})
				continue
			}
		}
		out = append(out, ranked{kind, sqlMigration(t, model, cols, kind, f, effects, s.migrationsDir())})
	}
	// In the SQL fixes' order, which is docs/rules.md's for the hole's
	// shape.
	fixes := make([]audit.Fix, len(out))
	for i, r := range out {
		fixes[i] = r.fix
	}
	return fixes
}

// sqlMigration is a fix as the SQL of a migration made with --create-only.
// Prisma runs a migration's script inside a transaction, where CONCURRENTLY
// is refused, so the indexes are built plainly.
func sqlMigration(t *catalog.Table, model *Model, cols []string, kind ddl.Kind, f audit.Fix, effects []ddl.Effect, dir string) audit.Fix {
	name := migrationName(t.Name, cols, kind)
	var b strings.Builder
	fmt.Fprintf(&b, "-- npx prisma migrate dev --create-only --name %s\n", name)
	fmt.Fprintf(&b, "-- then this is %s/<timestamp>_%s/migration.sql; apply it with npx prisma migrate dev\n", dir, name)
	concurrent := false
	for _, e := range effects {
		sql := e.SQL
		if e.Concurrently {
			concurrent = true
			sql = strings.Replace(sql, "INDEX CONCURRENTLY ", "INDEX ", 1)
		}
		b.WriteString(sql + ";\n")
	}
	caveat := strings.Replace(f.Caveat, "Run each statement on its own, outside a transaction (CONCURRENTLY). ", "", 1)
	caveat = strings.Replace(caveat, "Run each statement on its own, outside a transaction (CONCURRENTLY).", "", 1)
	if concurrent {
		caveat += " Prisma applies a migration in one transaction, so the index is built without CONCURRENTLY and " +
			"blocks writes to the table while it builds; on a large table run the SQL fix with CONCURRENTLY by hand " +
			"(prisma db execute) and record the migration with prisma migrate resolve --applied."
	}
	switch kind {
	case ddl.NullsNotDistinct:
		caveat += " The schema keeps its @@unique: Prisma's schema cannot say NULLS NOT DISTINCT."
	case ddl.AddsIndex:
		caveat += " The schema cannot declare this partial index (prisma 6.19 has no partialIndexes preview feature), " +
			"so the SQL prisma migrate diff writes from the schema does not have it: check each migration prisma " +
			"generates after this one, and keep out any DROP INDEX of it. With prisma 7's partialIndexes preview " +
			"feature the schema can declare it (prisma 7.10.1 validates this): " + partialUnique(model, effects) + "."
	}
	return audit.Fix{
		Title:    "Prisma migration (SQL): " + f.Title,
		SQL:      strings.TrimRight(b.String(), "\n"),
		Caveat:   strings.TrimSpace(caveat),
		Precheck: f.Precheck,
	}
}

// partialUnique writes the @@unique lines that declare the indexes a split
// adds, in Prisma 7's partialIndexes syntax.
func partialUnique(model *Model, effects []ddl.Effect) string {
	var lines []string
	for _, e := range effects {
		for _, ix := range e.Added {
			var fields []string
			for _, p := range ix.Parts {
				name := p.String()
				if model != nil && p.Column != "" {
					if f := model.Fields[p.Column]; f != nil {
						name = f.Name
					}
				}
				fields = append(fields, name)
			}
			pred := ""
			if ix.Predicate != nil {
				pred = ix.Predicate.String()
			}
			lines = append(lines, fmt.Sprintf("@@unique([%s], where: raw(%q), map: %q)", strings.Join(fields, ", "), pred, ix.Name))
		}
	}
	return strings.Join(lines, " and ")
}

// requiredFix makes the nullable fields required in the schema; migrate
// writes the ALTER COLUMN ... SET NOT NULL.
func requiredFix(model *Model, cols []string, f audit.Fix) (audit.Fix, bool) {
	var edits, names []string
	for _, c := range cols {
		field := model.Fields[c]
		if field == nil || !field.Optional {
			return audit.Fix{}, false
		}
		names = append(names, field.Name)
		edits = append(edits, fmt.Sprintf("  %s %s // was %s %s? (line %d)", field.Name, field.Type, field.Name, field.Type, field.Pos.Line))
	}
	name := migrationName(model.Table, cols, ddl.NotNull)
	// The file the model is in: schema.prisma, or one file of a multi-file
	// schema (prisma/models/charge.prisma).
	file := "prisma/schema.prisma"
	if f := model.Fields[cols[0]]; f != nil && f.Pos.File != "" {
		file = f.Pos.File
	}
	sql := fmt.Sprintf("// %s, model %s:\n%s\n// then: npx prisma migrate dev --name %s",
		file, model.Name, strings.Join(edits, "\n"), name)
	return audit.Fix{
		Title: "Prisma: make " + strings.Join(names, " and ") + " required",
		SQL:   sql,
		Caveat: "Right when a " + model.Name + " without " + strings.Join(names, " or ") + " should not exist. The migration " +
			"fails while any row holds NULL (the precheck lists them): create it with --create-only and backfill those rows, " +
			"with values that do not collide, before its SET NOT NULL; make sure the application always sets the field.",
		Precheck: f.Precheck,
		Lang:     "prisma",
	}, true
}

// migrationName is a migration's name: charge_namespace_nulls_not_distinct.
func migrationName(table string, cols []string, kind ddl.Kind) string {
	words := append([]string{table}, cols...)
	base := strings.ToLower(strings.Join(words, "_"))
	switch kind {
	case ddl.NullsNotDistinct:
		return base + "_nulls_not_distinct"
	case ddl.AddsIndex:
		return base + "_null_index"
	case ddl.NotNull:
		return base + "_required"
	}
	return base + "_fix"
}

// migrationsDir is where the project keeps its migrations.
func (s *Schema) migrationsDir() string {
	if s.MigrationsDir != "" {
		return s.MigrationsDir
	}
	return "prisma/migrations"
}
