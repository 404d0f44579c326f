package sqlrace

import (
	"strings"
	"testing"
)

// TestDiagnoseQuotesTheRuleThatApplies: a double win through a NULL key
// part quotes on-conflict-hole for the statement when it is an ON CONFLICT
// claim, and the index's own rule: nullable-key for a hole, optional-unique
// (with why the race still counts) for an index unique when present.
func TestDiagnoseQuotesTheRuleThatApplies(t *testing.T) {
	rows := []map[string]any{{"id": 1, "env": 1, "key": nil}, {"id": 2, "env": 1, "key": nil}}
	cases := []struct {
		name string
		key  UniqueKey
		want []string
		not  []string
	}{
		{"a hole, plain insert", UniqueKey{Name: "k", Columns: []string{"env", "key"}, Valid: true, Hole: "H", HoleRule: "nullable-key"},
			[]string{". nullable-key: H"}, []string{"on-conflict-hole", "optional-unique"}},
		{"a hole, ON CONFLICT claim", UniqueKey{Name: "k", Columns: []string{"env", "key"}, Valid: true, Hole: "H", HoleRule: "nullable-key", Claim: "C"},
			[]string{". on-conflict-hole: C. nullable-key: H"}, []string{"optional-unique"}},
		{"unique when present, ON CONFLICT claim", UniqueKey{Name: "k", Columns: []string{"env", "key"}, Valid: true, Hole: "O", HoleRule: "optional-unique", Claim: "C"},
			[]string{". on-conflict-hole: C. The index alone reads as unique when present (optional-unique: O), but this claim relies on it for the rows where key is NULL"},
			[]string{"nullable-key"}},
	}
	for _, c := range cases {
		got := strings.Join(DiagnoseRows("public.t", []UniqueKey{c.key}, rows), "\n")
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: %q names %s", c.name, got, n)
			}
		}
	}
}
