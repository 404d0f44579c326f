package catalog

import (
	"reflect"
	"testing"
)

func TestQuoteIdent(t *testing.T) {
	cases := map[string]string{
		"namespace":     "namespace",
		"user":          `"user"`,
		"Account":       `"Account"`,
		"2fa":           `"2fa"`,
		"with space":    `"with space"`,
		`say "hi"`:      `"say ""hi"""`,
		"external_id_2": "external_id_2",
		"":              `""`,
	}
	for in, want := range cases {
		if got := QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestExprString(t *testing.T) {
	ns := &ColumnRef{Name: "namespace"}
	cases := []struct {
		e    Expr
		want string
	}{
		{&NullTest{Arg: ns, IsNull: true}, "namespace IS NULL"},
		{&And{Args: []Expr{&NullTest{Arg: ns}, &Compare{Op: "=", Left: &ColumnRef{Name: "kind"}, Right: &Const{Value: "'charge'"}}}},
			"(namespace IS NOT NULL) AND (kind = 'charge')"},
		{&Compare{Op: "<>", Left: &NullTest{Arg: &ColumnRef{Name: "a"}}, Right: &NullTest{Arg: &ColumnRef{Name: "b"}}},
			"(a IS NOT NULL) <> (b IS NOT NULL)"},
		{&Func{Name: "coalesce", Args: []Expr{ns, &Const{Value: "''"}}}, "coalesce(namespace, '')"},
		{&Func{Name: "->>", Op: true, Args: []Expr{&ColumnRef{Name: "data"}, &Const{Value: "'k'"}}}, "data ->> 'k'"},
		{&Func{Name: "text", Cast: true, Args: []Expr{&ColumnRef{Name: "User"}}}, `"User"::text`},
		{&Compare{Op: "IN", Left: ns, Right: &List{Items: []Expr{&Const{Value: "'a'"}, &Const{Null: true}}}}, "namespace IN ('a', NULL)"},
		{&BoolTest{Arg: &ColumnRef{Name: "active"}, Test: "NOT TRUE"}, "active IS NOT TRUE"},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.want {
			t.Errorf("String() = %s, want %s", got, c.want)
		}
	}
}

func TestConjunctsAndColumns(t *testing.T) {
	a, b, c := &ColumnRef{Name: "a"}, &ColumnRef{Name: "b"}, &ColumnRef{Name: "c"}
	e := &And{Args: []Expr{&NullTest{Arg: a}, &And{Args: []Expr{&NullTest{Arg: b}, &Or{Args: []Expr{a, c}}}}}}
	if n := len(Conjuncts(e)); n != 3 {
		t.Errorf("Conjuncts: %d terms, want 3 (nested ANDs flatten, OR stays whole)", n)
	}
	if got := ColumnsOf(e); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("ColumnsOf = %v, want [a b c]", got)
	}
	if Conjuncts(nil) != nil {
		t.Error("Conjuncts(nil) should be empty")
	}
}

func TestResolveTableFollowsSearchPath(t *testing.T) {
	c := New()
	billing := c.AddSchema("billing")
	billing.Tables["charges"] = &Table{Schema: "billing", Name: "charges"}
	if c.ResolveTable("", "charges") != nil {
		t.Fatal("unqualified name found a table outside the search path")
	}
	c.SearchPath = []string{"billing", "public"}
	if c.ResolveTable("", "charges") == nil {
		t.Fatal("unqualified name not found through the search path")
	}
	if c.ResolveTable("public", "charges") != nil {
		t.Fatal("qualified name found a table in another schema")
	}
	if got := billing.Tables["charges"].DisplayName(); got != "billing.charges" {
		t.Errorf("DisplayName = %s, want billing.charges", got)
	}
}

func TestRenameColumnsCopiesOnlyWhatChanges(t *testing.T) {
	a, b := &ColumnRef{Name: "a"}, &ColumnRef{Name: "b"}
	kept := &Compare{Op: "=", Left: b, Right: &Const{Value: "1"}}
	e := &And{Args: []Expr{&NullTest{Arg: &Func{Name: "lower", Args: []Expr{a}}}, kept,
		&BoolTest{Arg: &Not{Arg: a}, Test: "TRUE"}, &Compare{Op: "IN", Left: a, Right: &List{Items: []Expr{b}}}}}
	before := e.String()
	got := RenameColumns(e, func(n string) string {
		if n == "a" {
			return "z"
		}
		return n
	})
	want := "(lower(z) IS NOT NULL) AND (b = 1) AND ((NOT z) IS TRUE) AND (z IN (b))"
	if got.String() != want {
		t.Errorf("RenameColumns = %s, want %s", got, want)
	}
	if e.String() != before || a.Name != "a" {
		t.Errorf("RenameColumns changed its input: %s", e)
	}
	if got.(*And).Args[1] != Expr(kept) {
		t.Error("a part without the column was copied rather than shared")
	}
	if RenameColumns(kept, func(n string) string { return n }) != Expr(kept) {
		t.Error("an expression nothing renames should come back as it was")
	}
	if RenameColumns(nil, func(string) string { return "x" }) != nil {
		t.Error("RenameColumns(nil) should be nil")
	}
}

func TestRewriteVisitsChildrenFirst(t *testing.T) {
	e := &Or{Args: []Expr{&ColumnRef{Name: "a"}, &Not{Arg: &ColumnRef{Name: "b"}}}}
	var order []string
	Rewrite(e, func(x Expr) Expr {
		order = append(order, x.String())
		return x
	})
	want := []string{"a", "b", "NOT b", "a OR (NOT b)"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("Rewrite order = %q, want %q", order, want)
	}
}
