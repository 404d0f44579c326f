package replay

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// describeColumns and friends render the parts of a catalog that replay and
// the server must agree on, one line per object, so a difference reads as a
// diff.
const serverColumns = `
SELECT n.nspname || '.' || c.relname || '.' || a.attname || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('public', 'billing') AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped`

const serverIndexes = `
SELECT i.indexrelid::regclass::text, n.nspname, c.relname, ic.relname, i.indisunique, i.indisprimary, i.indnullsnotdistinct,
       i.indisvalid, i.indnkeyatts, pg_get_expr(i.indpred, i.indrelid), coalesce(k.conname, ''),
       coalesce((SELECT pn.nspname || '.' || pc.relname FROM pg_inherits h JOIN pg_class pc ON pc.oid = h.inhparent
                 JOIN pg_namespace pn ON pn.oid = pc.relnamespace WHERE h.inhrelid = i.indexrelid), '')
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_constraint k ON k.conindid = i.indexrelid AND k.contype IN ('u', 'p')
WHERE n.nspname IN ('public', 'billing')`

const serverChecks = `
SELECT n.nspname || '.' || c.relname || ' ' || k.conname || CASE WHEN k.convalidated THEN ' valid' ELSE ' not valid' END
FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('public', 'billing') AND k.contype = 'c'`

func TestReplayRoundTripAgainstServer(t *testing.T) {
	src, err := os.ReadFile("../../testdata/replay/roundtrip.sql")
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := pg.SplitWithParser(string(src), true)
	if err != nil {
		t.Fatal(err)
	}
	conn := testDB(t)
	execAll(t, conn, stmts)
	cat := replayAll(t, stmts)

	serverCols := queryStrings(t, conn, serverColumns)
	serverChecks := queryStrings(t, conn, serverChecks)
	serverIdx := serverIndexLines(t, conn)
	if len(serverIdx) < 15 {
		t.Fatalf("the server holds only %d indexes: the fixture did not run", len(serverIdx))
	}
	t.Run("migration", func(t *testing.T) {
		compareWithServer(t, cat, serverCols, serverChecks, serverIdx)
	})
	// pg_dump --schema-only of the same database, as committed: the dump's
	// own forms (ON ONLY, ATTACH, set_config, ALTER TABLE ONLY ... ADD
	// CONSTRAINT) must rebuild the same catalog.
	t.Run("pg_dump", func(t *testing.T) {
		compareWithServer(t, replayDump(t, "../../testdata/replay/roundtrip_dump.sql"), serverCols, serverChecks, serverIdx)
	})
}

// replayDump splits a dump file the way lint does and replays it.
func replayDump(t *testing.T, path string) *catalog.Catalog {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res := scan.Split(scan.Input{Path: path, Text: string(src)})
	cat := catalog.New()
	r := NewReplayer(cat)
	for _, st := range res.Statements {
		for _, d := range r.Apply(st) {
			t.Errorf("replay of the dump: unexpected %s", d)
		}
	}
	return cat
}

func compareWithServer(t *testing.T, cat *catalog.Catalog, serverCols, serverChecks, serverIdx []string) {
	t.Helper()
	var cols, checks []string
	for _, tb := range cat.Tables() {
		for _, c := range tb.Columns {
			line := tb.QualifiedName() + "." + c.Name
			if c.NotNull {
				line += " not null"
			}
			cols = append(cols, line)
		}
		for _, ck := range tb.Checks {
			state := " valid"
			if !ck.Validated {
				state = " not valid"
			}
			checks = append(checks, tb.QualifiedName()+" "+ck.Name+state)
		}
	}
	sort.Strings(cols)
	sort.Strings(checks)
	if d := diffLists(serverCols, cols); d != "" {
		t.Errorf("columns differ:\n%s", d)
	}
	if d := diffLists(serverChecks, checks); d != "" {
		t.Errorf("checks differ:\n%s", d)
	}
	if d := diffLists(serverIdx, replayedIndexLines(cat)); d != "" {
		t.Errorf("indexes differ:\n%s", d)
	}
}

// indexLine is one index as both sides describe it.
func indexLine(schema, table, name string, unique, primary, nnd, valid bool, parts []string, pred catalog.Expr, constraint, parent string) string {
	predText := ""
	if pred != nil {
		predText = " WHERE " + pred.String()
	}
	return fmt.Sprintf("%s.%s %s unique=%v primary=%v nnd=%v valid=%v (%s)%s constraint=%q parent=%q",
		schema, table, name, unique, primary, nnd, valid, strings.Join(parts, ", "), predText, constraint, parent)
}

// serverIndexLines describes every index the server holds, its key parts
// and predicate converted through ParseExpr as inspect will.
func serverIndexLines(t *testing.T, conn *pgx.Conn) []string {
	t.Helper()
	ctx := context.Background()
	type row struct {
		oid, schema, table, name    string
		unique, primary, nnd, valid bool
		nkeys                       int
		pred                        *string
		constraint, parent          string
	}
	rows, err := conn.Query(ctx, serverIndexes)
	if err != nil {
		t.Fatal(err)
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.oid, &r.schema, &r.table, &r.name, &r.unique, &r.primary, &r.nnd, &r.valid, &r.nkeys, &r.pred, &r.constraint, &r.parent); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	var out []string
	for _, r := range all {
		var parts []string
		for k := 1; k <= r.nkeys; k++ {
			var text string
			if err := conn.QueryRow(ctx, `SELECT pg_get_indexdef($1::regclass, $2, true)`, r.oid, k).Scan(&text); err != nil {
				t.Fatal(err)
			}
			e, err := ParseExpr(text)
			if err != nil {
				t.Fatalf("key text %q: %v", text, err)
			}
			parts = append(parts, e.String())
		}
		var pred catalog.Expr
		if r.pred != nil {
			if pred, err = ParseExpr(*r.pred); err != nil {
				t.Fatalf("predicate %q: %v", *r.pred, err)
			}
		}
		out = append(out, indexLine(r.schema, r.table, r.name, r.unique, r.primary, r.nnd, r.valid, parts, pred, r.constraint, r.parent))
	}
	sort.Strings(out)
	return out
}

func replayedIndexLines(cat *catalog.Catalog) []string {
	var out []string
	for _, tb := range cat.Tables() {
		for _, ix := range tb.Indexes {
			var parts []string
			for _, p := range ix.Parts {
				if p.Column != "" {
					parts = append(parts, (&catalog.ColumnRef{Name: p.Column}).String())
				} else {
					parts = append(parts, p.Expr.String())
				}
			}
			out = append(out, indexLine(tb.Schema, tb.Name, ix.Name, ix.Unique, ix.Primary, ix.NullsNotDistinct, ix.Valid, parts, ix.Predicate, ix.Constraint, ix.ParentIndex))
		}
	}
	sort.Strings(out)
	return out
}
