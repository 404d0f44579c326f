package catalog

import (
	"strings"
	"testing"
)

func TestMakeObjectName(t *testing.T) {
	long := strings.Repeat("a", 70)
	multi := strings.Repeat("é", 40) // 80 bytes, 2 per character
	tests := []struct {
		name1, name2, label, want string
	}{
		{"t", "a", "key", "t_a_key"},
		{"t", "", "pkey", "t_pkey"},
		{long, "col", "key", strings.Repeat("a", 55) + "_col_key"},
		{long, long, "idx", strings.Repeat("a", 29) + "_" + strings.Repeat("a", 29) + "_idx"},
		// 63-1-4 = 58 bytes for name1; the 58th byte would split an é.
		{multi, "", "pkey", strings.Repeat("é", 29) + "_pkey"},
	}
	for _, tc := range tests {
		got := MakeObjectName(tc.name1, tc.name2, tc.label)
		if got != tc.want {
			t.Errorf("MakeObjectName(%q, %q, %q) = %q, want %q", tc.name1, tc.name2, tc.label, got, tc.want)
		}
		if len(got) > 63 {
			t.Errorf("MakeObjectName(%q...) is %d bytes, more than 63", tc.name1[:5], len(got))
		}
	}
}

func TestChooseNameNumbersClashes(t *testing.T) {
	long := strings.Repeat("a", 70)
	taken := map[string]bool{
		"t_a_key": true, "t_a_key1": true,
		strings.Repeat("a", 55) + "_col_key": true,
	}
	tests := []struct {
		name1, name2, label, want string
	}{
		{"t", "a", "key", "t_a_key2"},
		{"t", "b", "key", "t_b_key"},
		// The label grows by a digit, so name1 gives up one more byte.
		{long, "col", "key", strings.Repeat("a", 54) + "_col_key1"},
	}
	for _, tc := range tests {
		got := ChooseName(tc.name1, tc.name2, tc.label, func(n string) bool { return taken[n] })
		if got != tc.want {
			t.Errorf("ChooseName(%.8q, %q, %q) = %q, want %q", tc.name1, tc.name2, tc.label, got, tc.want)
		}
	}
}

func TestIndexColumnNames(t *testing.T) {
	parts := []IndexPart{
		{Column: "email"},
		{Expr: &Func{Name: "lower", Args: []Expr{&ColumnRef{Name: "email"}}}},
		{Expr: &Func{Name: "lower", Args: []Expr{&ColumnRef{Name: "name"}}}},
		{Expr: &Func{Name: "text", Cast: true, Args: []Expr{&ColumnRef{Name: "code"}}}},
		{Expr: &Func{Name: "+", Op: true, Args: []Expr{&ColumnRef{Name: "a"}, &Const{Value: "1"}}}},
	}
	got := strings.Join(IndexColumnNames(parts, []string{"email"}), ",")
	if want := "email,lower,lower1,code,expr,email1"; got != want {
		t.Errorf("IndexColumnNames = %s, want %s", got, want)
	}
}
