package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/pgtest"
	"github.com/idemcheck/idemcheck/sqlparse"
)

const exampleTree = "../testdata/examples/payments/migrations"

// copyTree copies the files of dir into a new temporary directory.
func copyTree(t *testing.T, dir string) string {
	t.Helper()
	out := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// applyTree runs the up part of every file of the tree in dir that is not in
// done, in migration order, each file as one simple-protocol exec (as
// golang-migrate runs it), and returns the paths it ran.
func applyTree(t *testing.T, dsn, dir string, done map[string]bool) []string {
	t.Helper()
	trees, diags := sqlparse.Discover([]string{dir}, sqlparse.DiscoverOptions{})
	if len(diags) > 0 || len(trees) != 1 {
		t.Fatalf("discover %s: %d trees, %v", dir, len(trees), diags)
	}
	var ran []string
	for _, f := range trees[0].Files {
		if done[f.Path] {
			continue
		}
		in, err := sqlparse.ReadUp(f)
		if err != nil {
			t.Fatal(err)
		}
		pgtest.Exec(t, dsn, in.Text)
		ran = append(ran, f.Path)
	}
	return ran
}

// TestFixMigrationRoundTrip is the contract of --fix-sql DIR: after the
// example tree, the generated migration applies cleanly on PostgreSQL, and
// linting the tree with it finds no nullable-key left.
func TestFixMigrationRoundTrip(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	dir := copyTree(t, exampleTree)
	done := map[string]bool{}
	for _, p := range applyTree(t, dsn, dir, nil) {
		done[p] = true
	}

	r := run(t, "lint", "--fix-sql", dir, dir)
	assertCode(t, r, ExitFindings)
	assertContains(t, "stderr", r.stder, "000017_idemcheck_fixes.up.sql", "000017_idemcheck_fixes.down.sql")

	up, err := os.ReadFile(filepath.Join(dir, "000017_idemcheck_fixes.up.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-- precheck:", "-- nullable-key public.charge_claims.charge_claims_unique_claim", "SET NOT NULL;"} {
		if !strings.Contains(string(up), want) {
			t.Errorf("generated migration lacks %q:\n%s", want, up)
		}
	}
	if ran := applyTree(t, dsn, dir, done); len(ran) == 0 {
		t.Fatal("no new migration was applied")
	}

	r = run(t, "lint", "--format", "json", dir)
	var doc struct {
		Findings []struct{ Rule, Object string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	for _, f := range doc.Findings {
		if f.Rule == "nullable-key" {
			t.Errorf("nullable-key still reported after the fix migration: %s", f.Object)
		}
	}
}

// TestFixSQLFile: --fix-sql FILE writes one file with every first fix.
func TestFixSQLFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "fixes.sql")
	r := run(t, "lint", "--fix-sql", out, exampleTree)
	assertCode(t, r, ExitFindings)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	assertContains(t, out, string(data), "charge_claims", "usage_events", "-- precheck:")
}
