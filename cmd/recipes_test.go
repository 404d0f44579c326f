package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

// The README's "Your framework" recipes, run on a small app with the hole
// for every framework that installs from the registries this machine
// reaches. Each must end in the nullable-key finding. Under CI=true a
// missing framework fails (.ci/run installs them).

// debianPython is Debian's python3, which sees python3-django,
// python3-alembic and python3-psycopg2; another python3 on PATH would not.
const debianPython = "/usr/bin/python3"

func requireRecipeTool(t *testing.T, what string, check ...string) {
	t.Helper()
	out, err := exec.Command(check[0], check[1:]...).CombinedOutput()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is needed under CI=true (.ci/run installs it): %v\n%s", what, err, out)
	}
	t.Skipf("%s not available: %v", what, err)
}

// sh runs a recipe step in dir and returns its standard output.
func sh(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// wantHole requires the recipe's lint or inspect run to report the hole.
func wantHole(t *testing.T, r result, object string) {
	t.Helper()
	assertCode(t, r, ExitFindings)
	assertContains(t, "stdout", r.stdout, "nullable-key", object, "namespace may be NULL")
}

func TestRecipeDjango(t *testing.T) {
	requireRecipeTool(t, "Debian's Django and psycopg2 (apt-get install python3-django python3-psycopg2)",
		debianPython, "-c", "import django, psycopg2")
	app := copyDirTree(t, "../testdata/recipes/django")
	dsn := pgtest.NewDatabase(t)
	env := []string{"DATABASE_URL=" + dsn, "PYTHONDONTWRITEBYTECODE=1"}
	sh(t, app, env, debianPython, "manage.py", "makemigrations", "payments")

	// Recipe 1: the SQL of each migration, linted.
	sql := sh(t, app, env, debianPython, "manage.py", "sqlmigrate", "payments", "0001")
	file := filepath.Join(app, "0001.sql")
	if err := os.WriteFile(file, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	wantHole(t, run(t, "lint", file), "payments_charge.charge_unique_claim")

	// Recipe 2: migrate, then inspect the database.
	sh(t, app, env, debianPython, "manage.py", "migrate", "--no-input")
	wantHole(t, run(t, "inspect", "--dsn", dsn), "payments_charge.charge_unique_claim")
}

func TestRecipeAlembic(t *testing.T) {
	requireRecipeTool(t, "Debian's Alembic (apt-get install python3-alembic)", debianPython, "-c", "import alembic")
	app := copyDirTree(t, "../testdata/recipes/alembic")
	sql := sh(t, app, []string{"PYTHONDONTWRITEBYTECODE=1"}, debianPython, "-m", "alembic", "upgrade", "head", "--sql")
	file := filepath.Join(app, "upgrade.sql")
	if err := os.WriteFile(file, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	wantHole(t, run(t, "lint", file), "charges.charges_unique_claim")
}

func TestRecipeRailsStructureSQL(t *testing.T) {
	requireRecipeTool(t, "Debian's ActiveRecord (apt-get install ruby-activerecord ruby-pg)",
		"/usr/bin/ruby", "-e", `require "active_record"; require "pg"`)
	harness, err := filepath.Abs("../testdata/frameworks/rails_harness.rb")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := filepath.Abs("../testdata/frameworks/rails/charges_schema.rb")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	structure := filepath.Join(dir, "db", "structure.sql")
	if err := os.MkdirAll(filepath.Dir(structure), 0o755); err != nil {
		t.Fatal(err)
	}
	sh(t, dir, nil, "/usr/bin/ruby", harness, "structure", schema, pgtest.NewDatabase(t), structure)
	wantHole(t, run(t, "lint", structure), "charges.index_charges_on_account_id_and_kind_and_address_and_namespace")
	// The whole app directory finds db/structure.sql the same way.
	wantHole(t, run(t, "lint", dir), "charges.index_charges_on_account_id_and_kind_and_address_and_namespace")
}

func TestRecipeSqlc(t *testing.T) {
	r := run(t, "lint", "../testdata/recipes/sqlc/schema.sql", "--queries", "../testdata/recipes/sqlc/query.sql")
	wantHole(t, r, "charges.charges_account_id_kind_address_namespace_key")
	assertContains(t, "stdout", r.stdout, "error on-conflict-hole")
}
