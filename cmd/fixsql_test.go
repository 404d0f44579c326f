package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
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
	assertContains(t, "stderr", r.stder, "000017_idemcheck_fixes.up.sql", "000017_idemcheck_fixes.down.sql",
		"000018_idemcheck_fixes_concurrently_1.up.sql")

	// The first fix of a real hole keeps NULL meaningful: NULLS NOT
	// DISTINCT (the default --pg-version is 16), one statement per file as
	// golang-migrate needs for CONCURRENTLY.
	ups, err := filepath.Glob(filepath.Join(dir, "0000[12]*_idemcheck_fixes*.up.sql"))
	if err != nil || len(ups) < 2 {
		t.Fatalf("generated up files: %v %v", ups, err)
	}
	var all strings.Builder
	for _, p := range ups {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, want := range []string{"-- precheck:", "-- nullable-key public.charge_claims.charge_claims_unique_claim",
		"ADD CONSTRAINT charge_claims_unique_claim UNIQUE USING INDEX charge_claims_unique_claim_nnd"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("generated migrations lack %q:\n%s", want, all.String())
		}
	}
	if strings.Contains(all.String(), "SET NOT NULL") {
		t.Errorf("a first fix makes a column NOT NULL, which breaks rows that mean \"none\":\n%s", all.String())
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

// TestFixSQLFileAppliedWithPsql is the contract of --fix-sql FILE on the
// example tree, as a user would apply it: psql -v ON_ERROR_STOP=1 -f, no
// wrapping transaction, on PostgreSQL 15 or later. The file runs without
// error; inspect then finds no nullable-key; every index or constraint the
// fixes rebuilt keeps its name and is NULLS NOT DISTINCT; and no copy of an
// old index is left behind.
func TestFixSQLFileAppliedWithPsql(t *testing.T) {
	psql, err := exec.LookPath("psql")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("psql not found: %v; CI=true, so this is a failure, not a skip", err)
		}
		t.Skipf("psql not found (%v): install postgresql-client", err)
	}
	pgtest.RequireVersion(t, 150000, "NULLS NOT DISTINCT")
	dsn := pgtest.NewDatabase(t)
	applyTree(t, dsn, exampleTree, nil)

	r := run(t, "lint", "--format", "json", exampleTree)
	var doc struct {
		Findings []struct{ Rule, Object string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var holes []string
	for _, f := range doc.Findings {
		if f.Rule == "nullable-key" {
			holes = append(holes, f.Object)
		}
	}
	if len(holes) != 3 {
		t.Fatalf("the example tree has %d nullable-key findings, want 3: %v", len(holes), holes)
	}
	conn := connectDSN(t, dsn)
	before := map[string]indexState{}
	for _, obj := range holes {
		before[obj] = readIndexState(t, conn, obj)
	}

	out := filepath.Join(t.TempDir(), "fixes.sql")
	assertCode(t, run(t, "lint", "--fix-sql", out, exampleTree), ExitFindings)
	cmd := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", out)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
	if msg, err := cmd.CombinedOutput(); err != nil {
		data, _ := os.ReadFile(out)
		t.Fatalf("psql -v ON_ERROR_STOP=1 -f: %v\n%s\n--- the file:\n%s", err, msg, data)
	}

	r = run(t, "inspect", "--dsn", dsn, "--format", "json")
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s%s", err, r.stdout, r.stder)
	}
	for _, f := range doc.Findings {
		if f.Rule == "nullable-key" {
			t.Errorf("inspect still reports nullable-key on %s after the fixes", f.Object)
		}
	}
	for _, obj := range holes {
		after := readIndexState(t, conn, obj)
		if !after.exists || !after.nnd {
			t.Errorf("%s after the fixes: %+v, want it there, NULLS NOT DISTINCT", obj, after)
		}
		if after.constraint != before[obj].constraint {
			t.Errorf("%s: constraint %q before, %q after", obj, before[obj].constraint, after.constraint)
		}
		if after.sameKey != 1 {
			t.Errorf("%s: %d unique indexes on its key after the fixes, want 1 (a leftover copy)", obj, after.sameKey)
		}
	}
	var leftovers []string
	rows, err := conn.Query(context.Background(), `SELECT relname::text FROM pg_class WHERE relkind = 'i' AND relname LIKE '%\_nnd%'`)
	if err != nil {
		t.Fatal(err)
	}
	leftovers, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(leftovers) != 0 {
		t.Errorf("indexes left under a fix's temporary name: %v %v", leftovers, err)
	}
}

// indexState is what the psql test checks of one unique index.
type indexState struct {
	exists, nnd bool
	// constraint is the UNIQUE constraint the index backs, "" for none.
	constraint string
	// sameKey counts the unique indexes of the table over the same key.
	sameKey int
}

// readIndexState reads the index of a finding's object
// ("schema.table.index").
func readIndexState(t *testing.T, conn *pgx.Conn, object string) indexState {
	t.Helper()
	parts := strings.SplitN(object, ".", 3)
	var s indexState
	err := conn.QueryRow(context.Background(), `
SELECT true, i.indnullsnotdistinct, coalesce(k.conname::text, ''),
       (SELECT count(*) FROM pg_index o WHERE o.indrelid = i.indrelid AND o.indisunique AND o.indkey::text = i.indkey::text)::int
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_namespace n ON n.oid = ic.relnamespace
LEFT JOIN pg_constraint k ON k.conindid = i.indexrelid AND k.contype = 'u'
WHERE n.nspname = $1 AND ic.relname = $2`, parts[0], parts[2]).Scan(&s.exists, &s.nnd, &s.constraint, &s.sameKey)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.Fatal(err)
	}
	return s
}

// connectDSN opens a connection to dsn for the test, closed at its end.
func connectDSN(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
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
