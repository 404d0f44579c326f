package frameworks

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/inspect"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// The differentials hold the readers to the frameworks themselves: each
// fixture is loaded into PostgreSQL by the framework's own code (Debian's
// ActiveRecord 6.1 for schema.rb, Prisma 6.19's migrate diff for a Prisma
// schema), read back by inspect, and must give the findings lint gives on
// the file, under the same names.

// requireTool skips without the tool, except under CI=true, where a missing
// tool is a failure (.ci/run installs it).
func requireTool(t *testing.T, what string, check func() error) {
	t.Helper()
	if err := check(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is needed under CI=true (.ci/run installs it): %v", what, err)
		}
		t.Skipf("%s not available: %v", what, err)
	}
}

// rubyPath is Debian's ruby, which loads Debian's ActiveRecord (ruby-activerecord,
// ruby-pg); a ruby from elsewhere on PATH would not see those gems.
const rubyPath = "/usr/bin/ruby"

func requireActiveRecord(t *testing.T) {
	t.Helper()
	requireTool(t, "Debian's ActiveRecord (apt-get install ruby-activerecord ruby-pg)", func() error {
		out, err := exec.Command(rubyPath, "-e", `require "active_record"; require "pg"; print ActiveRecord.version`).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	})
}

func runRails(t *testing.T, args ...string) error {
	t.Helper()
	harness, err := filepath.Abs(filepath.Join(fixtureRoot, "rails_harness.rb"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(rubyPath, append([]string{harness}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
}

// inspectDB reads the database's catalog as `idemcheck inspect` does.
func inspectDB(t *testing.T, dsn string) (*catalog.Catalog, int) {
	t.Helper()
	ctx := context.Background()
	s, err := inspect.Open(ctx, inspect.Config{DSN: dsn, Timeout: 20 * time.Second, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("inspect: %v", err)
	}
	defer s.Close(ctx)
	snap, err := s.ReadCatalog(ctx, inspect.Filter{})
	if err != nil {
		t.Fatalf("inspect: %v", err)
	}
	return snap.Catalog, s.ServerMajor()
}

func eitherRules() []*audit.Rule {
	var out []*audit.Rule
	for _, r := range audit.Rules {
		if r.Needs == audit.Either {
			out = append(out, r)
		}
	}
	return out
}

// findingKeys are what must match across the two sources.
func findingKeys(fs []audit.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s (%s)", f.Severity, f.Rule, f.Object, strings.Join(f.Columns, ", ")))
	}
	slices.Sort(out)
	return out
}

// uniqueKeys describes every unique index and constraint: names and what
// they enforce, so that a suppression written for one carries over.
func uniqueKeys(cat *catalog.Catalog, skipSchema func(string) bool) []string {
	var out []string
	for _, tb := range cat.Tables() {
		if skipSchema(tb.Schema) {
			continue
		}
		for _, ix := range tb.UniqueIndexes() {
			pred := ""
			if ix.Predicate != nil {
				pred = " where"
			}
			out = append(out, fmt.Sprintf("%s.%s (%s) nnd=%v constraint=%q%s",
				tb.QualifiedName(), ix.Name, strings.Join(ix.PartNames(), ", "), ix.NullsNotDistinct, ix.Constraint, pred))
		}
	}
	sort.Strings(out)
	return out
}

// compareLintInspect requires lint (on the replayed schema file) and inspect
// (on the database the framework built) to agree; it returns the number of
// findings both gave.
func compareLintInspect(t *testing.T, rep replayedSQL, live *catalog.Catalog, major int) int {
	t.Helper()
	opts := audit.Options{PGVersion: major}
	want := findingKeys(rep.audit(eitherRules(), opts))
	opts.Live = true
	got := findingKeys(audit.Run(live, eitherRules(), opts))
	if !slices.Equal(got, want) {
		t.Errorf("findings differ\n lint:    %s\n inspect: %s", strings.Join(want, "\n          "), strings.Join(got, "\n          "))
	}
	internal := func(s string) bool { return s == "pg_catalog" || s == "information_schema" }
	wantIx, gotIx := uniqueKeys(rep.cat, internal), uniqueKeys(live, internal)
	if !slices.Equal(gotIx, wantIx) {
		t.Errorf("unique indexes differ\n lint:    %s\n inspect: %s", strings.Join(wantIx, "\n          "), strings.Join(gotIx, "\n          "))
	}
	return len(got)
}

func railsFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixtureRoot, "rails", "*_schema.rb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema.rb fixtures: %v", err)
	}
	return files
}

// TestRailsDifferential loads every schema.rb fixture with ActiveRecord 6.1
// (shimmed for newer dumps by testdata/frameworks/rails_harness.rb),
// inspects the database and compares with lint. Then it runs every Rails
// fix's migration class on a fresh copy and checks the finding is gone.
func TestRailsDifferential(t *testing.T) {
	requireActiveRecord(t)
	pgtest.RequireVersion(t, 150000, "NULLS NOT DISTINCT in the fixtures")
	agreed, fixed := 0, 0
	for _, path := range railsFixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			dsn := pgtest.NewDatabase(t)
			if err := runRails(t, "load", path, dsn); err != nil {
				t.Fatalf("ActiveRecord could not load the schema: %v", err)
			}
			live, major := inspectDB(t, dsn)
			findings, replayed, _ := lintSchema(t, path, src, major)
			agreed += compareLintInspect(t, replayed, live, major)

			// Every Rails fix runs on its own copy of the loaded database,
			// all in one Ruby process.
			type applied struct {
				f   audit.Finding
				fix audit.Fix
				dsn string
			}
			var runs []applied
			args := []string{"migrate"}
			for _, f := range findings {
				if f.Rule != "nullable-key" || f.Suppressed != nil {
					continue
				}
				for _, fix := range f.Fixes {
					if fix.Lang != "ruby" {
						continue
					}
					fresh := copyDatabase(t, dsn)
					mig := filepath.Join(t.TempDir(), "fix.rb")
					if err := os.WriteFile(mig, []byte(fix.SQL), 0o644); err != nil {
						t.Fatal(err)
					}
					runs = append(runs, applied{f, fix, fresh})
					args = append(args, fresh, mig)
				}
			}
			if len(runs) == 0 {
				return
			}
			if err := runRails(t, args...); err != nil {
				t.Fatalf("ActiveRecord refused a fix: %v", err)
			}
			for _, r := range runs {
				after, major := inspectDB(t, r.dsn)
				for _, g := range audit.Run(after, eitherRules(), audit.Options{PGVersion: major, Live: true}) {
					if g.Object == r.f.Object && g.Rule == r.f.Rule {
						t.Errorf("%s: still reported on the database after the migration %q:\n%s", r.f.Pos, r.fix.Title, r.fix.SQL)
					}
				}
				fixed++
			}
		})
	}
	if agreed == 0 && !t.Failed() {
		t.Error("no fixture produced a finding: the comparison proved nothing")
	}
	t.Logf("%d findings agreed; %d Rails fix migrations run by ActiveRecord closed their finding", agreed, fixed)
}

// copyDatabase makes a copy of the database at dsn (a template copy, much
// cheaper than loading the schema again) and drops it when t ends.
func copyDatabase(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	src := strings.TrimPrefix(u.Path, "/")
	name := fmt.Sprintf("%s_c%d", src, copies.Add(1))
	admin := pgtest.Connect(t)
	ctx := context.Background()
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, src)); err != nil {
		t.Fatalf("copy database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), pgtest.DSN())
		if err == nil {
			defer c.Close(context.Background())
			_, err = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		}
		if err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	return pgtest.WithDatabase(dsn, name)
}

var copies atomic.Int64

// prismaDir holds prisma@6.19 and @prisma/adapter-pg (.ci/run installs them
// there); IDEMCHECK_PRISMA_DIR overrides it.
func prismaDir() string {
	if d := os.Getenv("IDEMCHECK_PRISMA_DIR"); d != "" {
		return d
	}
	return "/opt/idemcheck-prisma"
}

func requirePrisma(t *testing.T) {
	t.Helper()
	requireTool(t, "node with prisma@6.19 and @prisma/adapter-pg in "+prismaDir(), func() error {
		for _, p := range []string{"node_modules/prisma/build/index.js", "node_modules/@prisma/adapter-pg/package.json"} {
			if _, err := os.Stat(filepath.Join(prismaDir(), p)); err != nil {
				return err
			}
		}
		_, err := exec.LookPath("node")
		return err
	})
}

// prismaDDL is the SQL that Prisma itself generates for a schema: `prisma
// migrate diff --from-empty --to-schema-datamodel --script`, with the
// WebAssembly schema engine (engine: 'js') and the pg adapter. The adapter
// connects to dsn, though a diff from empty changes nothing there.
func prismaDDL(t *testing.T, schemaPath, dsn string) string {
	t.Helper()
	return prismaDDLOf(t, []string{schemaPath}, dsn)
}

// prismaDDLOf is prismaDDL for the files of one schema: one file, or the
// files of a multi-file schema (the first in its top directory), which
// Prisma reads as a folder.
func prismaDDLOf(t *testing.T, paths []string, dsn string) string {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	schema := "schema.prisma"
	if len(paths) > 1 {
		schema = "schema"
	}
	top := filepath.Dir(paths[0])
	for _, p := range paths {
		src, err := os.ReadFile(p)
		must(err)
		src = withDatasourceURL(src)
		dst := filepath.Join(dir, schema)
		if len(paths) > 1 {
			rel, err := filepath.Rel(top, p)
			must(err)
			dst = filepath.Join(dir, schema, rel)
		}
		must(os.MkdirAll(filepath.Dir(dst), 0o755))
		must(os.WriteFile(dst, src, 0o644))
	}
	must(os.Symlink(filepath.Join(prismaDir(), "node_modules"), filepath.Join(dir, "node_modules")))
	config := fmt.Sprintf(`import { defineConfig } from 'prisma/config'
import { PrismaPg } from '@prisma/adapter-pg'
export default defineConfig({
  engine: 'js',
  experimental: { adapter: true },
  schema: %q,
  adapter: async () => new PrismaPg({ connectionString: %q }),
})
`, schema, dsn)
	must(os.WriteFile(filepath.Join(dir, "prisma.config.ts"), []byte(config), 0o644))
	// Prisma checks for its query engine library, which it would download;
	// migrate diff does not use it, so an empty file stands in.
	must(os.WriteFile(filepath.Join(dir, "no-query-engine.so.node"), nil, 0o644))
	cmd := exec.Command("node", "node_modules/prisma/build/index.js", "migrate", "diff",
		"--from-empty", "--to-schema-datamodel", schema, "--script")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dsn, "CHECKPOINT_DISABLE=1", "PRISMA_HIDE_UPDATE_MESSAGE=1",
		"PRISMA_QUERY_ENGINE_LIBRARY="+filepath.Join(dir, "no-query-engine.so.node"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("prisma migrate diff: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// Prisma 7 schemas name no url in their datasource (prisma.config.ts
// does); Prisma 6.19 requires one, so a copy for migrate diff gets one. It
// changes nothing in the DDL.
var datasourceOpen = regexp.MustCompile(`(?m)^[ \t]*datasource[ \t]+\w+[ \t]*\{[^}]*\}`)

func withDatasourceURL(src []byte) []byte {
	return datasourceOpen.ReplaceAllFunc(src, func(block []byte) []byte {
		if regexp.MustCompile(`(?m)^\s*url\s*=`).Match(block) {
			return block
		}
		return append(block[:len(block)-1:len(block)-1], []byte("  url = env(\"DATABASE_URL\")\n}")...)
	})
}

func prismaFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixtureRoot, "prisma", "*.prisma"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Prisma fixtures: %v", err)
	}
	// The grammar schemas (every argument form Prisma accepts, which
	// cmd's TestPrismaGrammar has prisma validate check) are held to
	// Prisma's own DDL too: same unique indexes by name and key.
	grammar, err := filepath.Glob(filepath.Join(fixtureRoot, "prisma_grammar", "*.prisma"))
	if err != nil || len(grammar) == 0 {
		t.Fatalf("no Prisma grammar schemas: %v", err)
	}
	return append(files, grammar...)
}

// execScript runs a migration script the way Prisma applies one: all of it
// in one transaction.
func execScript(t *testing.T, dsn, sql string) error {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "BEGIN;\n"+sql+"\nCOMMIT;", pgx.QueryExecModeSimpleProtocol)
	return err
}

// TestPrismaDifferential builds a database from each Prisma fixture with
// the DDL Prisma 6.19 itself generates, inspects it and compares with lint
// on the schema file. Then each Prisma SQL-migration fix runs, in one
// transaction as Prisma runs a migration, on a copy, and must close the
// finding.
func TestPrismaDifferential(t *testing.T) {
	requirePrisma(t)
	agreed, fixed := 0, 0
	for _, path := range prismaFixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			dsn := pgtest.NewDatabase(t)
			ddl := prismaDDL(t, path, dsn)
			if err := execScript(t, dsn, ddl); err != nil {
				t.Fatalf("Prisma's DDL does not run: %v\n%s", err, ddl)
			}
			live, major := inspectDB(t, dsn)
			findings, replayed, _ := lintSchema(t, path, src, major)
			agreed += compareLintInspect(t, replayed, live, major)

			// The README's recipe for a project without migrations: lint
			// what migrate diff --script prints. Same findings.
			fromDDL := catalog.New()
			r := sqlparse.NewReplayer(fromDDL)
			for _, st := range sqlparse.Split(sqlparse.Input{Path: "ddl.sql", Text: ddl}).Statements {
				for _, d := range r.Apply(st) {
					if d.Level == sqlparse.Error {
						t.Errorf("lint of Prisma's DDL: %s", d)
					}
				}
			}
			opts := audit.Options{PGVersion: major}
			fromDDLRun := replayedSQL{fromDDL, r.History()}
			if a, b := findingKeys(fromDDLRun.audit(eitherRules(), opts)), findingKeys(replayed.audit(eitherRules(), opts)); !slices.Equal(a, b) {
				t.Errorf("lint of migrate diff --script and of the schema differ\n DDL:    %s\n schema: %s", strings.Join(a, "\n         "), strings.Join(b, "\n         "))
			}

			for _, f := range findings {
				if f.Rule != "nullable-key" || f.Suppressed != nil {
					continue
				}
				for _, fix := range f.Fixes {
					if !strings.HasPrefix(fix.Title, "Prisma migration") {
						continue
					}
					fresh := copyDatabase(t, dsn)
					if err := execScript(t, fresh, fix.SQL); err != nil {
						t.Errorf("%s: the migration %q fails: %v\n%s", f.Pos, fix.Title, err, fix.SQL)
						continue
					}
					after, major := inspectDB(t, fresh)
					for _, g := range audit.Run(after, eitherRules(), audit.Options{PGVersion: major, Live: true}) {
						if g.Object == f.Object && g.Rule == f.Rule {
							t.Errorf("%s: still reported after the migration %q", f.Pos, fix.Title)
						}
					}
					fixed++
				}
			}
		})
	}
	if agreed == 0 && !t.Failed() {
		t.Error("no fixture produced a finding: the comparison proved nothing")
	}
	t.Logf("%d findings agreed; %d Prisma SQL migrations closed their finding", agreed, fixed)
}

// TestRealSchemas runs the differentials on schema files of real projects,
// kept out of the repository and of CI: IDEMCHECK_REAL_SCHEMAS names a
// directory of *schema.rb and *.prisma files, and of folders that each hold
// one multi-file Prisma schema (found as lint finds it).
func TestRealSchemas(t *testing.T) {
	dir := os.Getenv("IDEMCHECK_REAL_SCHEMAS")
	if dir == "" {
		t.Skip("IDEMCHECK_REAL_SCHEMAS is not set (a directory of real schema.rb and .prisma files)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			_, found, _ := Find([]string{path})
			if len(found) != 1 {
				t.Skipf("not one schema: %d found", len(found))
			}
			s, err := Read(found[0].Paths...)
			if err != nil {
				t.Fatal(err)
			}
			dsn := pgtest.NewDatabase(t)
			switch s.Kind {
			case Rails:
				requireActiveRecord(t)
				if err := runRails(t, "load", path, dsn); err != nil {
					t.Fatalf("ActiveRecord could not load the schema: %v", err)
				}
			case Prisma:
				requirePrisma(t)
				ddl := prismaDDLOf(t, found[0].Paths, dsn)
				// A schema may use an extension's types or operator classes
				// while its migrations, not the schema, create the extension.
				if strings.Contains(ddl, "gin_trgm_ops") {
					ddl = "CREATE EXTENSION IF NOT EXISTS pg_trgm;\n" + ddl
				}
				if strings.Contains(ddl, "CITEXT") {
					ddl = "CREATE EXTENSION IF NOT EXISTS citext;\n" + ddl
				}
				if err := execScript(t, dsn, ddl); err != nil {
					t.Fatalf("Prisma's DDL does not run: %v", err)
				}
			}
			live, major := inspectDB(t, dsn)
			findings, replayed, _ := lintSource(t, s, major)
			n := compareLintInspect(t, replayed, live, major)
			ix := len(uniqueKeys(live, func(s string) bool { return s == "pg_catalog" || s == "information_schema" }))
			t.Logf("%s: %d findings agree (%d with suppressions applied), %d unique indexes agree by name and key", filepath.Base(path), n, len(findings), ix)
		})
	}
}
