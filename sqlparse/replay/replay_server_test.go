package replay

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// testDB creates a throwaway database on the test server and connects to
// it (skipping without a server, failing under CI=true).
func testDB(t *testing.T) *pgx.Conn { return pgtest.NewConn(t) }

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
		for _, d := range r.Apply(scan.NewStatement(fmt.Sprintf("m%d.sql", i), s, 0)) {
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
