package prose_test

import (
	"testing"

	"github.com/idemcheck/idemcheck/audit/internal/prose"
	"github.com/idemcheck/idemcheck/catalog"
)

func TestList(t *testing.T) {
	cases := []struct {
		words []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a or b"},
		{[]string{"a", "b", "c"}, "a, b or c"},
	}
	for _, tc := range cases {
		if got := prose.List(tc.words, "or"); got != tc.want {
			t.Errorf("List(%q) = %q, want %q", tc.words, got, tc.want)
		}
	}
}

func TestPartsNameColumnsAndExpressions(t *testing.T) {
	parts := []catalog.IndexPart{
		{Column: "account_id"},
		{Expr: &catalog.Func{Name: "lower", Args: []catalog.Expr{&catalog.ColumnRef{Name: "email"}}}},
		{},
	}
	got := prose.Parts(parts)
	want := []string{"account_id", "lower(email)", "?"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Parts[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}
