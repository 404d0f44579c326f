package sqlrace

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
)

func TestParseStatementBindsTemplates(t *testing.T) {
	cases := []struct {
		in, text string
		args     []any
	}{
		{"INSERT INTO t (k, r) VALUES ({{key}}, {{round}}) RETURNING id",
			"INSERT INTO t (k, r) VALUES ($1, $2) RETURNING id", []any{"K", "7"}},
		{"INSERT INTO t (k) SELECT '{{key}}' WHERE NOT EXISTS (SELECT 1 FROM t WHERE k = {{key}})",
			"INSERT INTO t (k) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM t WHERE k = $1)", []any{"K"}},
		{"SELECT {{uuid}}, 'it''s {{ not a template', x$1 -- {{key}} in a comment\n",
			"SELECT $1, 'it''s {{ not a template', x$1 -- {{key}} in a comment\n", []any{"U"}},
		// Comments, dollar quotes, quoted identifiers and escape strings
		// are tokens of their own: a quote or $n inside means nothing.
		{"/* it's {{key}} /* nested */ still */ INSERT INTO t (k) VALUES ({{key}}) RETURNING id",
			"/* it's {{key}} /* nested */ still */ INSERT INTO t (k) VALUES ($1) RETURNING id", []any{"K"}},
		{"SELECT $$it's {{ not a template $1$$, $fn$ ' $fn$, {{key}}",
			"SELECT $$it's {{ not a template $1$$, $fn$ ' $fn$, $1", []any{"K"}},
		{"SELECT $${{key}}$$, $k${{round}}$k$", "SELECT $1, $2", []any{"K", "7"}},
		{`SELECT "it's", "$1" FROM t WHERE k = {{key}}`, `SELECT "it's", "$1" FROM t WHERE k = $1`, []any{"K"}},
		{`SELECT E'it\'s', e'{{key}}', name$1, é$1`, `SELECT E'it\'s', $1, name$1, é$1`, []any{"K"}},
	}
	v := racetest.RoundValues{Key: "K", Round: 7, UUID: "U"}
	for _, c := range cases {
		st, err := ParseStatement(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if st.Text != c.text || !reflect.DeepEqual(st.Args(v), c.args) {
			t.Errorf("%q:\n got %q %v\nwant %q %v", c.in, st.Text, st.Args(v), c.text, c.args)
		}
	}
}

func TestParseStatementRefusesSplicing(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT 'order-{{key}}'":   "{{key}} inside the string literal at offset 7",
		"SELECT 'open":             "not closed",
		"SELECT $1 + {{round}}":    "uses a bind parameter at offset 7",
		"INSERT INTO t VALUES ()":  "",
		`SELECT "{{key}}"`:         "{{key}} inside the quoted identifier at offset 7",
		"SELECT $$order-{{key}}$$": "{{key}} inside the dollar-quoted string at offset 7",
		"SELECT E'a\\'{{key}}'":    "{{key}} inside the string literal at offset 7",
		"SELECT /* open":           "the comment at offset 7 is not closed",
		"SELECT $x$ open":          "the dollar-quoted string at offset 7 is not closed",
		`SELECT "open`:             "the quoted identifier at offset 7 is not closed",
		"SELECT E'open\\'":         "the string literal at offset 7 is not closed",
	} {
		_, err := ParseStatement(in)
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", in, err, want)
		}
	}
}

// TestParseStatementAgreesWithPostgreSQL runs bound statements on the
// server: what the scanner left as literal text must come back as that
// text, and every template it bound must come back as its round's value,
// so PostgreSQL's lexer and this one agree on where the tokens are.
func TestParseStatementAgreesWithPostgreSQL(t *testing.T) {
	conn := pgtest.Connect(t)
	v := racetest.RoundValues{Key: "K", Round: 7, UUID: "U"}
	for in, want := range map[string][]string{
		"SELECT /* it's {{key}} /* nested */ still */ {{key}}::text":                       {"K"},
		"SELECT $$it's {{ not a template $1$$::text, $fn$ ' $fn$::text, {{key}}::text":     {"it's {{ not a template $1", " ' ", "K"},
		"SELECT $${{key}}$$::text, $k${{round}}$k$::text":                                  {"K", "7"},
		`SELECT "it's" FROM (SELECT {{key}}::text AS "it's") AS q`:                         {"K"},
		`SELECT E'it\'s'::text, e'{{key}}'::text`:                                          {"it's", "K"},
		"SELECT 'it''s {{ not a template'::text, {{uuid}}::text -- {{key}} in a comment\n": {"it's {{ not a template", "U"},
	} {
		st, err := ParseStatement(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		rows, err := conn.Query(context.Background(), st.Text, st.Args(v)...)
		if err != nil {
			t.Fatalf("%q bound as %q: %v", in, st.Text, err)
		}
		var got []string
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			for _, val := range vals {
				got = append(got, fmt.Sprint(val))
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatalf("%q bound as %q: %v", in, st.Text, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q bound as %q: PostgreSQL returned %q, want %q", in, st.Text, got, want)
		}
	}
}
