package replay

import (
	"context"
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/catalog"
)

func TestParseExprShapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"(namespace IS NULL)", "namespace IS NULL"},
		{"((kind)::text = 'charge'::text)", "kind = 'charge'"},
		{"lower(email)", "lower(email)"},
		{"pg_catalog.lower(email)", "lower(email)"},
		{"a IS NOT NULL AND NOT b", "(a IS NOT NULL) AND (NOT b)"},
		{"a = 1 OR a IS NULL", "(a = 1) OR (a IS NULL)"},
		{"flag IS NOT TRUE", "flag IS NOT TRUE"},
		{"kind IN ('a', 'b')", "kind IN ('a', 'b')"},
		{"kind = ANY (ARRAY['a'::text, 'b'::text])", "kind IN ('a', 'b')"},
		{"x = ANY (ids)", "x = ANY (ids)"},
		{"a != b", "a <> b"},
		{"email ~~ '%@x'::text", "email LIKE '%@x'"},
		{"email ILIKE 'x'", "email ILIKE 'x'"},
		{"a IS DISTINCT FROM b", "a IS DISTINCT FROM b"},
		{"NULLIF(a, '')", "nullif(a, '')"},
		{"COALESCE(a, 0)", "coalesce(a, 0)"},
		{"GREATEST(a, b)", "greatest(a, b)"},
		{"data ->> 'k'", "data ->> 'k'"},
		{"a || b", "a || b"},
		{"-a", "- a"},
		{"(n)::bigint", "n::int8"},
		{"n > '-1'::integer", "n > -1"},
		{"NULL", "NULL"},
		{"true", "true"},
		{"1.5", "1.5"},
		{"CASE WHEN a THEN 1 END", "CASE WHEN a THEN 1 END"},
		{"n BETWEEN 1 AND 5", "(n >= 1) AND (n <= 5)"},
	}
	for _, tc := range tests {
		e, err := ParseExpr(tc.in)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tc.in, err)
			continue
		}
		if got := e.String(); got != tc.want {
			t.Errorf("ParseExpr(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseExprKinds(t *testing.T) {
	e, err := ParseExpr("a IS NULL")
	if err != nil {
		t.Fatal(err)
	}
	if nt, ok := e.(*catalog.NullTest); !ok || !nt.IsNull {
		t.Fatalf("a IS NULL = %#v, want a NullTest with IsNull", e)
	}
	e, _ = ParseExpr("'x'")
	if c, ok := e.(*catalog.Const); !ok || c.Value != "'x'" {
		t.Fatalf("'x' = %#v, want Const 'x'", e)
	}
	e, _ = ParseExpr("NULL")
	if c, ok := e.(*catalog.Const); !ok || !c.Null {
		t.Fatalf("NULL = %#v, want Const{Null: true}", e)
	}
	e, _ = ParseExpr("a::text || 'x'")
	if f, ok := e.(*catalog.Func); !ok || !f.Op || f.Name != "||" {
		t.Fatalf("a || 'x' = %#v, want an operator Func", e)
	}
	e, _ = ParseExpr("(SELECT 1)")
	if _, ok := e.(*catalog.Unknown); !ok {
		t.Fatalf("(SELECT 1) = %#v, want Unknown", e)
	}
}

func TestParseExprRejects(t *testing.T) {
	for _, in := range []string{"", "a +", "1; DROP TABLE t", "a FROM t", "x AS y"} {
		if e, err := ParseExpr(in); err == nil {
			t.Errorf("ParseExpr(%q) = %v, want an error", in, e)
		}
	}
}

// serverExprCases are predicates and expression key parts written the way a
// migration would; the server's pg_get_expr / pg_get_indexdef text for each
// must convert to the same tree replay builds from the migration.
var serverExprCases = []struct{ keys, where string }{
	{"kind, n", "ns IS NULL"},
	{"kind, n", "ns IS NOT NULL AND kind = 'charge'"},
	{"n", "kind IN ('a', 'b')"},
	{"n", "kind NOT IN ('a', 'b')"},
	{"kind", "n > -1"},
	{"kind", "n BETWEEN 1 AND 5"},
	{"kind", "flag"},
	{"kind", "NOT flag"},
	{"kind", "flag IS NOT TRUE"},
	{"kind", "ns IS NULL OR n = 0"},
	{"kind", "email LIKE '%@x'"},
	{"kind", "lower(email) = 'x'"},
	{"kind", "n IS DISTINCT FROM 3"},
	{"kind", "coalesce(ns, '') <> ''"},
	{"kind", "data->>'k' = 'v'"},
	{"kind", "n = ANY ('{1,2}'::int[])"},
	{"kind", "amount > 1.5 AND deleted_at IS NULL"},
	{"kind", "nullif(ns, '') IS NOT NULL"},
	{"lower(email)", ""},
	{"lower(kind)", ""},
	{"(kind::text)", ""},
	{"coalesce(ns, ''), n", ""},
	{"(data->>'k')", ""},
	{"greatest(n, 0)", ""},
	{"(ns || kind)", ""},
	{"(n + 1)", ""},
}

func TestExprMatchesServerText(t *testing.T) {
	conn := testDB(t)
	ctx := context.Background()
	table := `CREATE TABLE e (id int, kind varchar(20), ns text, n int, flag bool, data jsonb, email text, amount numeric, deleted_at timestamptz)`
	stmts := []string{table}
	for i, c := range serverExprCases {
		sql := fmt.Sprintf("CREATE UNIQUE INDEX e_%d ON e (%s)", i, c.keys)
		if c.where != "" {
			sql += " WHERE " + c.where
		}
		stmts = append(stmts, sql)
	}
	execAll(t, conn, stmts)
	cat := replayAll(t, stmts)
	tbl := cat.ResolveTable("", "e")
	for i, c := range serverExprCases {
		ix := tbl.Index(fmt.Sprintf("e_%d", i))
		var pred *string
		var nkeys int
		err := conn.QueryRow(ctx, `SELECT pg_get_expr(indpred, indrelid), indnkeyatts FROM pg_index WHERE indexrelid = $1::regclass`,
			fmt.Sprintf("e_%d", i)).Scan(&pred, &nkeys)
		if err != nil {
			t.Fatal(err)
		}
		if pred != nil {
			live, err := ParseExpr(*pred)
			if err != nil {
				t.Errorf("server predicate %q: %v", *pred, err)
			} else if !catalog.Equal(live, ix.Predicate) {
				t.Errorf("predicate %q: server %q gives %q, replay gives %q", c.where, *pred, live, ix.Predicate)
			}
		}
		if nkeys != len(ix.Parts) {
			t.Errorf("keys %q: server has %d key columns, replay %d", c.keys, nkeys, len(ix.Parts))
			continue
		}
		for k, part := range ix.Parts {
			var text string
			if err := conn.QueryRow(ctx, `SELECT pg_get_indexdef($1::regclass, $2, true)`, fmt.Sprintf("e_%d", i), k+1).Scan(&text); err != nil {
				t.Fatal(err)
			}
			live, err := ParseExpr(text)
			if err != nil {
				t.Errorf("server key text %q: %v", text, err)
				continue
			}
			replayed := part.Expr
			if part.Column != "" {
				replayed = &catalog.ColumnRef{Name: part.Column}
			}
			if !catalog.Equal(live, replayed) {
				t.Errorf("key %q part %d: server %q gives %q, replay gives %q", c.keys, k+1, text, live, replayed)
			}
		}
	}
}

func FuzzParseExpr(f *testing.F) {
	for _, c := range serverExprCases {
		f.Add(c.where)
		f.Add(c.keys)
	}
	f.Add("((kind)::text = ANY ((ARRAY['a'::character varying, 'b'::character varying])::text[]))")
	f.Fuzz(func(t *testing.T, text string) {
		e, err := ParseExpr(text)
		if err == nil && e != nil {
			_ = e.String()
			_ = catalog.ColumnsOf(e)
		}
	})
}
