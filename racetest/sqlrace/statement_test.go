package sqlrace

import (
	"reflect"
	"strings"
	"testing"

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
		"SELECT 'order-{{key}}'":  "{{key}} inside the string literal at offset 7",
		"SELECT 'open":            "not closed",
		"SELECT $1 + {{round}}":   "uses a bind parameter at offset 7",
		"INSERT INTO t VALUES ()": "",
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
