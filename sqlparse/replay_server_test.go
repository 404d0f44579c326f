package sqlparse

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/catalog"
)

// testDB connects to the test server and creates a throwaway database,
// dropped when the test ends. Without a server the test is skipped, unless
// CI=true: there a missing server is a failure.
func testDB(t *testing.T) *pgx.Conn {
	t.Helper()
	dsn := os.Getenv("IDEMCHECK_TEST_DSN")
	if dsn == "" {
		dsn = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL at IDEMCHECK_TEST_DSN is not reachable: %v", err)
		}
		t.Skipf("skipping: PostgreSQL at IDEMCHECK_TEST_DSN is not reachable: %v", err)
	}
	name := fmt.Sprintf("idemcheck_replay_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close(ctx)
		t.Fatalf("create test database: %v", err)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = name
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect to test database: %v", err)
	}
	t.Cleanup(func() {
		conn.Close(ctx)
		if _, err := admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database: %v", err)
		}
		admin.Close(ctx)
	})
	return conn
}

// execAll runs statements on the server, failing the test on any error.
func execAll(t *testing.T, conn *pgx.Conn, stmts []string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("server rejected %q: %v", s, err)
		}
	}
}

// replayAll replays statements into a fresh catalog and fails on any
// diagnostic: the server accepted every one of them.
func replayAll(t *testing.T, stmts []string) *catalog.Catalog {
	t.Helper()
	cat := catalog.New()
	r := NewReplayer(cat)
	for i, s := range stmts {
		for _, d := range r.Apply(NewStatement(fmt.Sprintf("m%d.sql", i), s, 0)) {
			t.Errorf("replay of %q: unexpected %s", s, d)
		}
	}
	return cat
}

const serverIndexNames = `
SELECT c.relname || ' ' || i.relname
FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_class c ON c.oid = x.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1`

const serverConstraintNames = `
SELECT c.relname || ' ' || k.conname || ' ' || k.contype::text
FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND k.contype IN ('c', 'u', 'p')`

func queryStrings(t *testing.T, conn *pgx.Conn, sql string, args ...any) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// replayedNames lists "table index" and "table constraint kind" for one
// schema of a replayed catalog, in the server queries' shape.
func replayedNames(cat *catalog.Catalog, schema string) (indexes, constraints []string) {
	s := cat.Schema(schema)
	if s == nil {
		return nil, nil
	}
	for _, tb := range s.Tables {
		for _, ix := range tb.Indexes {
			indexes = append(indexes, tb.Name+" "+ix.Name)
			switch {
			case ix.Primary:
				constraints = append(constraints, tb.Name+" "+ix.Constraint+" p")
			case ix.Constraint != "":
				constraints = append(constraints, tb.Name+" "+ix.Constraint+" u")
			}
		}
		for _, ck := range tb.Checks {
			constraints = append(constraints, tb.Name+" "+ck.Name+" c")
		}
	}
	sort.Strings(indexes)
	sort.Strings(constraints)
	return indexes, constraints
}

func diffLists(want, got []string) string {
	if strings.Join(want, "\n") == strings.Join(got, "\n") {
		return ""
	}
	return fmt.Sprintf("server:\n  %s\nreplay:\n  %s", strings.Join(want, "\n  "), strings.Join(got, "\n  "))
}
