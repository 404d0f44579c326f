package cmd

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

// The README's GORM and Ent recipes, run on the small apps in
// testdata/recipes/gorm and testdata/recipes/ent. Each app is its own Go
// module, so the frameworks stay out of idemcheck's go.mod; .ci/run
// downloads their modules, and under CI=true a module that cannot be had
// is a failure, not a skip.

// requireGoModule downloads the nested module's dependencies (instant when
// they are in the module cache).
func requireGoModule(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the modules of %s are needed under CI=true (.ci/run downloads them): %v\n%s", dir, err, out)
		}
		t.Skipf("the modules of %s cannot be downloaded: %v\n%s", dir, err, out)
	}
}

// TestRecipeGORM: GORM keeps no SQL. Its Migrator in DryRun mode prints the
// CREATE statements without a database (lint them), and AutoMigrate on a
// scratch database builds what the app would (inspect it).
func TestRecipeGORM(t *testing.T) {
	app, err := filepath.Abs("../testdata/recipes/gorm")
	if err != nil {
		t.Fatal(err)
	}
	requireGoModule(t, app)
	bin := t.TempDir()
	env := []string{"GOWORK=off", "GOFLAGS=-buildvcs=false -trimpath"}
	sh(t, app, env, "go", "build", "-o", bin+string(filepath.Separator), ".", "./cmd/schema")

	// Recipe 1: go run ./cmd/schema > schema.sql, then lint.
	sql := sh(t, app, nil, filepath.Join(bin, "schema"))
	file := filepath.Join(t.TempDir(), "schema.sql")
	if err := os.WriteFile(file, []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
	wantHole(t, run(t, "lint", file), "charges.charges_unique_claim")

	// Recipe 2: AutoMigrate, then inspect.
	dsn := pgtest.NewDatabase(t)
	sh(t, app, []string{"DATABASE_URL=" + dsn}, filepath.Join(bin, "gorm"))
	wantHole(t, run(t, "inspect", "--dsn", dsn), "charges.charges_unique_claim")
}

// TestRecipeEnt: go generate, then Ent's versioned migration (Atlas diffs
// the schema against an empty dev database and writes the SQL file) is
// linted, and Ent's automatic migration (client.Schema.Create) on a
// scratch database is inspected.
func TestRecipeEnt(t *testing.T) {
	src, err := filepath.Abs("../testdata/recipes/ent")
	if err != nil {
		t.Fatal(err)
	}
	requireGoModule(t, src)
	// The generated code goes into a copy, never into testdata.
	app := copyDirTree(t, src)
	env := []string{"GOWORK=off", "GOFLAGS=-buildvcs=false -trimpath"}
	sh(t, app, env, "go", "generate", "./ent")

	// Recipe 1: go run -mod=mod ent/migrate/main.go <name>, then lint the
	// migrations directory.
	migrations := filepath.Join(app, "ent", "migrate", "migrations")
	if err := os.MkdirAll(migrations, 0o755); err != nil {
		t.Fatal(err)
	}
	dev := withSearchPath(pgtest.NewDatabase(t))
	sh(t, app, append(env, "DEV_DATABASE_URL="+dev), "go", "run", "-mod=mod", "ent/migrate/main.go", "charges")
	wantHole(t, run(t, "lint", migrations), "charges.charges_unique_claim")

	// Recipe 2: client.Schema.Create on a scratch database, then inspect.
	dsn := pgtest.NewDatabase(t)
	sh(t, app, append(env, "DATABASE_URL="+dsn), "go", "run", ".")
	wantHole(t, run(t, "inspect", "--dsn", dsn), "charges.charges_unique_claim")
}

// withSearchPath sets search_path=public on a connection string, URL or
// key=value, which makes Atlas diff the public schema alone, as Ent's docs
// write the dev database URL.
func withSearchPath(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		q.Set("search_path", "public")
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=public"
}
