package audit_test

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// resetSchemas drops every user schema and recreates public, so the next
// fixture starts from an empty database without the cost of a new one.
const resetSchemas = `DO $$
DECLARE s text;
BEGIN
  FOR s IN SELECT nspname FROM pg_namespace
           WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema' LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', s);
  END LOOP;
  CREATE SCHEMA public;
END $$`

// testDB creates a throwaway database and returns a connection to it and
// the server's major version.
func testDB(t *testing.T) (*pgx.Conn, int) {
	t.Helper()
	conn := pgtest.NewConn(t)
	var versionNum string
	if err := conn.QueryRow(context.Background(), "SHOW server_version_num").Scan(&versionNum); err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(versionNum)
	return conn, n / 10000
}

// statements cuts fix SQL into its statements: each ends with ";" at the
// end of a line, and CONCURRENTLY ones must run one at a time.
func statements(sql string) []string {
	var out []string
	for _, s := range strings.SplitAfter(sql, ";\n") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// TestFixesRunOnPostgres runs every fixture, then every fix's precheck and
// SQL, on the real server: the SQL must be complete and valid there, and on
// the fixture's empty tables the precheck must find no collisions.
func TestFixesRunOnPostgres(t *testing.T) {
	conn, major := testDB(t)
	ctx := context.Background()
	ran := 0
	for _, path := range fixtureFiles(t) {
		src := readFixture(t, path)
		findings, _ := lintSource(t, path, src)
		for _, f := range findings {
			for _, fix := range f.Fixes {
				name := filepath.Base(path) + "/" + f.Object + "/" + fix.Title
				if _, err := conn.Exec(ctx, resetSchemas); err != nil {
					t.Fatalf("reset: %v", err)
				}
				if _, err := conn.Exec(ctx, src); err != nil {
					t.Fatalf("%s: fixture does not run on PostgreSQL %d: %v", path, major, err)
				}
				if strings.Contains(fix.SQL, "NULLS NOT DISTINCT") && major < 15 {
					continue
				}
				ran++
				// The simple protocol: a prepared precheck cached from
				// an earlier fix of the same table returns the old OID of
				// a domain-typed column, which the reset re-created.
				rows, err := conn.Query(ctx, fix.Precheck, pgx.QueryExecModeSimpleProtocol)
				if err != nil {
					t.Errorf("%s: precheck fails: %v\n%s", name, err, fix.Precheck)
					continue
				}
				collisions := 0
				for rows.Next() {
					collisions++
				}
				rows.Close()
				if rows.Err() != nil || collisions != 0 {
					t.Errorf("%s: precheck on empty tables: %d rows, %v", name, collisions, rows.Err())
				}
				for _, st := range statements(fix.SQL) {
					if _, err := conn.Exec(ctx, st); err != nil {
						t.Errorf("%s: %v\n%s", name, err, st)
						break
					}
				}
			}
		}
	}
	if ran == 0 {
		t.Fatal("no fix ran")
	}
	t.Logf("%d fixes ran on PostgreSQL %d", ran, major)
}

// TestFixesRefuseTheDuplicateOnPostgres shows the hole on the real server and
// each fix closing it: two events with the same organization and transaction
// and no subscription are both accepted before, and refused after.
func TestFixesRefuseTheDuplicateOnPostgres(t *testing.T) {
	conn, major := testDB(t)
	ctx := context.Background()
	path := filepath.Join(fixtureRoot, "nullable-key", "events_transaction_id.sql")
	src := readFixture(t, path)
	findings, _ := lintSource(t, path, src)
	if len(findings) != 1 {
		t.Fatalf("got %d findings, want 1", len(findings))
	}
	const insert = `INSERT INTO events (organization_id, external_subscription_id, transaction_id) VALUES (1, NULL, 'tx_1')`
	insertTwice := func() error {
		for i := 0; i < 2; i++ {
			if _, err := conn.Exec(ctx, insert); err != nil {
				return err
			}
		}
		return nil
	}
	reset := func() {
		if _, err := conn.Exec(ctx, resetSchemas); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, src); err != nil {
			t.Fatal(err)
		}
	}
	reset()
	if err := insertTwice(); err != nil {
		t.Fatalf("without a fix the duplicate should be accepted (that is the hole): %v", err)
	}
	for _, fix := range findings[0].Fixes {
		if strings.Contains(fix.SQL, "NULLS NOT DISTINCT") && major < 15 {
			continue
		}
		reset()
		for _, st := range statements(fix.SQL) {
			if _, err := conn.Exec(ctx, st); err != nil {
				t.Fatalf("%s: %v", fix.Title, err)
			}
		}
		err := insertTwice()
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || (pgErr.Code != "23505" && pgErr.Code != "23502") {
			t.Errorf("after %q the duplicate was not refused (err %v)", fix.Title, err)
		}
	}
}
