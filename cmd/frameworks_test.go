package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"
)

// The acceptance, as a user runs it: lint a framework schema, apply
// the fix as it says, lint again.

type lintJSON struct {
	Findings []struct {
		Rule     string `json:"rule"`
		Object   string `json:"object"`
		Position struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"position"`
		Fixes []struct {
			Title string `json:"title"`
			SQL   string `json:"sql"`
			Lang  string `json:"lang"`
		} `json:"fixes"`
	} `json:"findings"`
	Notes []struct {
		Message string `json:"message"`
	} `json:"notes"`
}

func lintJSONOf(t *testing.T, args ...string) (result, lintJSON) {
	t.Helper()
	r := run(t, append([]string{"lint", "--format", "json"}, args...)...)
	var doc lintJSON
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("lint --format json: %v\n%s", err, r.stdout)
	}
	return r, doc
}

// copyDirTree copies a fixture directory, with its subdirectories, into a
// temporary one.
func copyDirTree(t *testing.T, from string) string {
	t.Helper()
	dir := t.TempDir()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(dir, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func readText(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestLintSchemaRBAndItsFix: `idemcheck lint db/schema.rb` on a Rails
// schema with a nullable key part reports nullable-key with the Rails fix
// first; the schema as the migration leaves it lints clean.
func TestLintSchemaRBAndItsFix(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "db", "schema.rb")
	if err := os.MkdirAll(filepath.Dir(schema), 0o755); err != nil {
		t.Fatal(err)
	}
	src := readText(t, "../testdata/frameworks/rails/charges_schema.rb")
	if err := os.WriteFile(schema, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r, doc := lintJSONOf(t, schema)
	assertCode(t, r, ExitFindings)
	if len(doc.Findings) != 1 || doc.Findings[0].Rule != "nullable-key" || doc.Findings[0].Position.File != schema ||
		doc.Findings[0].Position.Line != 24 {
		t.Fatalf("want one nullable-key at %s:24, got %+v", schema, doc.Findings)
	}
	fix := doc.Findings[0].Fixes[0]
	if fix.Lang != "ruby" || !strings.Contains(fix.SQL, "nulls_not_distinct: true") || !strings.Contains(fix.SQL, "disable_ddl_transaction!") {
		t.Fatalf("the first fix is not the Rails NULLS NOT DISTINCT migration:\n%s", fix.SQL)
	}
	// The directory holding only db/schema.rb is found the same way.
	r, doc = lintJSONOf(t, dir)
	assertCode(t, r, ExitFindings)
	if len(doc.Findings) != 1 {
		t.Fatalf("lint %s: want the one finding, got %d (%s)", dir, len(doc.Findings), r.stdout)
	}

	// Apply the fix: its calls, as db:migrate writes them into schema.rb.
	_, body, _ := strings.Cut(fix.SQL, "  def change\n")
	body, _, _ = strings.Cut(body, "\n  end\n")
	end := strings.LastIndex(src, "\nend")
	if err := os.WriteFile(schema, []byte(src[:end+1]+body+"\n"+src[end+1:]), 0o644); err != nil {
		t.Fatal(err)
	}
	r, doc = lintJSONOf(t, schema)
	assertCode(t, r, ExitOK)
	if len(doc.Findings) != 0 {
		t.Errorf("after the fix: %+v", doc.Findings)
	}
}

// TestLintPrismaAppAndItsFix: in a Prisma app the migrations win, the
// finding carries the Prisma fix, and the app with the SQL migration the fix
// gave lints clean. The schema named on its own is linted itself.
func TestLintPrismaAppAndItsFix(t *testing.T) {
	app := copyDirTree(t, "../testdata/frameworks/prisma_app")
	r, doc := lintJSONOf(t, app)
	assertCode(t, r, ExitFindings)
	if len(doc.Findings) != 1 {
		t.Fatalf("want the hole once (the schema beside the migrations is not linted again), got %d:\n%s", len(doc.Findings), r.stdout)
	}
	f := doc.Findings[0]
	if f.Rule != "nullable-key" || !strings.HasSuffix(f.Position.File, "migration.sql") {
		t.Fatalf("want nullable-key in the migration, got %+v", f)
	}
	fix := f.Fixes[0]
	if !strings.HasPrefix(fix.Title, "Prisma migration (SQL)") || strings.Contains(fix.SQL, "CONCURRENTLY") ||
		!strings.Contains(fix.SQL, "prisma migrate dev --create-only") {
		t.Fatalf("the first fix is not a Prisma SQL migration:\n%s", fix.SQL)
	}
	required := false
	for _, x := range f.Fixes {
		required = required || x.Lang == "prisma" && strings.Contains(x.SQL, "namespace String //")
	}
	if !required {
		t.Error("no fix makes the field required in the schema")
	}

	// The schema named on its own is the input: the same hole, at its line,
	// with the same fixes.
	schema := filepath.Join(app, "prisma", "schema.prisma")
	r, doc = lintJSONOf(t, schema)
	assertCode(t, r, ExitFindings)
	if len(doc.Findings) != 1 || doc.Findings[0].Position.File != schema || doc.Findings[0].Position.Line != 28 ||
		doc.Findings[0].Object != f.Object || !strings.HasPrefix(doc.Findings[0].Fixes[0].Title, "Prisma migration (SQL)") {
		t.Fatalf("lint %s: want %s at line 28 with the Prisma fix, got %+v", schema, f.Object, doc.Findings)
	}

	// Apply the fix as it says: a new migration holding its SQL.
	mig := filepath.Join(app, "prisma", "migrations", "20990101000000_charges_namespace_nulls_not_distinct", "migration.sql")
	if err := os.MkdirAll(filepath.Dir(mig), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mig, []byte(fix.SQL+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, doc = lintJSONOf(t, app)
	assertCode(t, r, ExitOK)
	if len(doc.Findings) != 0 {
		t.Errorf("after the fix: %+v", doc.Findings)
	}
	// The schema still says @@unique without NULLS NOT DISTINCT: a note.
	noted := false
	for _, d := range doc.Notes {
		noted = noted || strings.Contains(d.Message, "NULLS NOT DISTINCT in the migrations")
	}
	if !noted {
		t.Errorf("no note compares the schema's @@unique with the rebuilt index: %+v", doc.Notes)
	}
}

// TestLintPrismaModelsFolder: Prisma's documented multi-file layout,
// prisma/schema.prisma with the datasource and prisma/models/*.prisma with
// the models, is one schema. Beside prisma/migrations the migrations win
// and the whole schema is compared with them; without migrations the
// models are linted with the datasource of schema.prisma.
func TestLintPrismaModelsFolder(t *testing.T) {
	app := copyDirTree(t, "../testdata/frameworks/prisma_app")
	prismaDir := filepath.Join(app, "prisma")
	splitPrismaSchema(t, prismaDir)

	r, doc := lintJSONOf(t, app)
	assertCode(t, r, ExitFindings)
	if len(doc.Findings) != 1 || !strings.HasSuffix(doc.Findings[0].Position.File, "migration.sql") {
		t.Fatalf("want the hole once, in the migration:\n%s", r.stdout)
	}
	if len(doc.Notes) != 0 {
		t.Errorf("the schema and its migrations agree, yet: %+v", doc.Notes)
	}

	if err := os.RemoveAll(filepath.Join(prismaDir, "migrations")); err != nil {
		t.Fatal(err)
	}
	r, doc = lintJSONOf(t, app)
	assertCode(t, r, ExitFindings)
	charge := filepath.Join(prismaDir, "models", "charge.prisma")
	if len(doc.Findings) != 1 || doc.Findings[0].Position.File != charge || doc.Findings[0].Rule != "nullable-key" {
		t.Fatalf("want the hole once, in %s:\n%s", charge, r.stdout)
	}
	if fix := doc.Findings[0].Fixes[0]; !strings.HasPrefix(fix.Title, "Prisma migration (SQL)") {
		t.Errorf("a model in models/ gets no Prisma fix first: %q", fix.Title)
	}
}

// splitPrismaSchema rewrites prisma_app's schema.prisma in Prisma's
// multi-file layout: the datasource in schema.prisma, each model in
// models/.
func splitPrismaSchema(t *testing.T, prismaDir string) {
	t.Helper()
	schema := readText(t, filepath.Join(prismaDir, "schema.prisma"))
	account, charge := strings.Index(schema, "model Account"), strings.Index(schema, "model Charge")
	split := map[string]string{
		"schema.prisma":         schema[:account],
		"models/account.prisma": schema[account:charge],
		"models/charge.prisma":  schema[charge:],
	}
	for name, text := range split {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(prismaDir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(prismaDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLintMonorepo: from a monorepo's root, a schema file three
// directories down is found with the SQL beside it, although the SQL loader
// alone looks two directories down: the migrations win and the hole is
// reported once. (One app per run: the trees of one run share a catalog.)
func TestLintMonorepo(t *testing.T) {
	for _, c := range []struct{ app, at, file string }{
		{"prisma_app", "packages/database", "migration.sql"},
		{"rails_app", "apps/api", "structure.sql"},
	} {
		t.Run(c.app, func(t *testing.T) {
			root := t.TempDir()
			dst := filepath.Join(root, c.at)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(copyDirTree(t, "../testdata/frameworks/"+c.app), dst); err != nil {
				t.Fatal(err)
			}
			if c.app == "prisma_app" {
				splitPrismaSchema(t, filepath.Join(dst, "prisma"))
			}
			r, doc := lintJSONOf(t, root)
			assertCode(t, r, ExitFindings)
			if len(doc.Findings) != 1 || filepath.Base(doc.Findings[0].Position.File) != c.file {
				t.Fatalf("want the hole once, in %s:\n%s", c.file, r.stdout)
			}
			for _, d := range doc.Notes {
				if strings.Contains(d.Message, "already exists") {
					t.Errorf("the schema was replayed on top of its migrations: %s", d.Message)
				}
			}
		})
	}
}

// TestLintRailsSchemaBesideStructureSQL: db/structure.sql wins over the
// db/schema.rb beside it; their difference is a note; the hole is reported
// once, with the Rails fixes.
func TestLintRailsSchemaBesideStructureSQL(t *testing.T) {
	r, doc := lintJSONOf(t, "../testdata/frameworks/rails_app")
	assertCode(t, r, ExitFindings)
	if len(doc.Findings) != 1 || !strings.HasSuffix(doc.Findings[0].Position.File, "structure.sql") {
		t.Fatalf("want one finding, in structure.sql: %s", r.stdout)
	}
	if doc.Findings[0].Fixes[0].Lang != "ruby" {
		t.Errorf("the finding in structure.sql has no Rails fix first")
	}
	noted := false
	for _, d := range doc.Notes {
		noted = noted || strings.Contains(d.Message, "charges.kind is nullable in schema.rb but NOT NULL in the migrations")
	}
	if !noted {
		t.Errorf("the drift of schema.rb is not noted: %+v", doc.Notes)
	}
}

// TestLintSchemaFileHostile: an unreadable schema file is an error naming
// it, and the good input beside it is still reported.
func TestLintSchemaFileHostile(t *testing.T) {
	good := writeFile(t, "events.sql", holeSQL)
	dir := testtree.Write(t, map[string]string{
		"empty/db/schema.rb":     "  \n",
		"broken/db/schema.rb":    "ActiveRecord::Schema[7.1].define(version: 1) do\n  create_table \"a\" do |t|\n    t.string \"x\", null: (\n  end\n  create_table \"b\", force: :cascade do |t|\n    t.string \"k\", null: false\n    t.string \"n\"\n    t.string \"v\", null: false\n    t.index [\"k\", \"n\", \"v\"], name: \"b_k_n_v\", unique: true\n  end\nend\n",
		"bad/schema.prisma":      "model A {\n  id Int @id\n  x String @@@\n}\n",
		"binary/db/schema.rb":    "\x00\x01",
		"provider/schema.prisma": "datasource db {\n  provider = \"mysql\"\n}\n",
	})
	r := run(t, "lint", good, filepath.Join(dir, "empty", "db", "schema.rb"), filepath.Join(dir, "broken", "db", "schema.rb"),
		filepath.Join(dir, "bad", "schema.prisma"), filepath.Join(dir, "binary", "db", "schema.rb"), filepath.Join(dir, "provider", "schema.prisma"))
	assertCode(t, r, ExitUsage)
	assertContains(t, "stdout", r.stdout,
		"events.sql:7:1: error nullable-key",
		"empty/db/schema.rb: empty file",
		"broken/db/schema.rb:3:",
		"b.b_k_n_v",
		"bad/schema.prisma:3:",
		"binary/db/schema.rb: binary file",
		`provider "mysql": idemcheck reads PostgreSQL schemas only`)
}
