package audit_test

// The null-safety reasoner (audit/internal/nullsafe) is tested here, through
// its exported API, with the hand-built tables the rule tests share.

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/catalog"
)

// Small constructors for hand-built expressions.
func col(n string) catalog.Expr             { return &catalog.ColumnRef{Name: n} }
func lit(v string) catalog.Expr             { return &catalog.Const{Value: v} }
func isNull(e catalog.Expr) catalog.Expr    { return &catalog.NullTest{Arg: e, IsNull: true} }
func isNotNull(e catalog.Expr) catalog.Expr { return &catalog.NullTest{Arg: e} }
func cmp(op string, l, r catalog.Expr) catalog.Expr {
	return &catalog.Compare{Op: op, Left: l, Right: r}
}
func fn(name string, args ...catalog.Expr) catalog.Expr { return &catalog.Func{Name: name, Args: args} }
func op(name string, args ...catalog.Expr) catalog.Expr {
	return &catalog.Func{Name: name, Args: args, Op: true}
}
func and(args ...catalog.Expr) catalog.Expr { return &catalog.And{Args: args} }
func or(args ...catalog.Expr) catalog.Expr  { return &catalog.Or{Args: args} }
func not(e catalog.Expr) catalog.Expr       { return &catalog.Not{Arg: e} }
func boolTest(e catalog.Expr, test string) catalog.Expr {
	return &catalog.BoolTest{Arg: e, Test: test}
}

// table builds public.t with NOT NULL column a and nullable columns k, c, d,
// flag, data.
func table(checks ...*catalog.Check) *catalog.Table {
	return &catalog.Table{
		Schema: "public", Name: "t",
		Columns: []*catalog.Column{
			{Name: "a", Type: "bigint", NotNull: true},
			{Name: "k", Type: "text"},
			{Name: "c", Type: "bigint"},
			{Name: "d", Type: "bigint"},
			{Name: "flag", Type: "boolean"},
			{Name: "data", Type: "jsonb"},
		},
		Checks: checks,
	}
}

func uniq(name string, pred catalog.Expr, parts ...catalog.IndexPart) *catalog.Index {
	return &catalog.Index{Name: name, Unique: true, Parts: parts, Predicate: pred, Valid: true, Ready: true, Method: "btree"}
}

func colPart(n string) catalog.IndexPart        { return catalog.IndexPart{Column: n} }
func exprPart(e catalog.Expr) catalog.IndexPart { return catalog.IndexPart{Expr: e} }

func TestNullSafeFromPredicate(t *testing.T) {
	k := col("k")
	cases := []struct {
		name string
		pred catalog.Expr
		safe bool
	}{
		{"no predicate", nil, false},
		{"k IS NOT NULL", isNotNull(k), true},
		{"NOT (k IS NULL)", not(isNull(k)), true},
		{"k = x", cmp("=", k, lit("'x'")), true},
		{"x = k", cmp("=", lit("'x'"), k), true},
		{"k <> x", cmp("<>", k, lit("'x'")), true},
		{"k < x", cmp("<", k, lit("'x'")), true},
		{"k >= x", cmp(">=", k, lit("'x'")), true},
		{"k IN list", cmp("IN", k, &catalog.List{Items: []catalog.Expr{lit("'a'"), lit("'b'")}}), true},
		{"k = ANY", cmp("= ANY", k, lit("'{a,b}'")), true},
		{"k LIKE", cmp("LIKE", k, lit("'a%'")), true},
		{"k IS TRUE", boolTest(k, "TRUE"), true},
		{"k IS FALSE", boolTest(k, "FALSE"), true},
		{"lower(k) = x", cmp("=", fn("lower", k), lit("'x'")), true},
		{"k IS NOT TRUE", boolTest(k, "NOT TRUE"), false},
		{"k IS NOT FALSE", boolTest(k, "NOT FALSE"), false},
		{"k IS NULL", isNull(k), false},
		{"coalesce(k, 0) = 1", cmp("=", fn("coalesce", k, lit("0")), lit("1")), false},
		{"k IS DISTINCT FROM x", cmp("IS DISTINCT FROM", k, lit("'x'")), false},
		{"other column only", isNotNull(col("c")), false},
		{"conjunct among others", and(isNotNull(col("c")), cmp("=", k, lit("'x'"))), true},
		{"disjunction, every branch forces", or(cmp("=", k, lit("'a'")), cmp("=", k, lit("'b'"))), true},
		{"disjunction, one branch does not", or(cmp("=", k, lit("'a'")), isNotNull(col("c"))), false},
		{"unknown function of k", cmp("=", fn("my_func", k), lit("1")), false},
		{"nullif(k, x) = y", cmp("=", fn("nullif", k, lit("'x'")), lit("'y'")), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab := table()
			ix := uniq("u", tc.pred, colPart("a"), colPart("k"))
			got := nullsafe.NullSafe(tab, ix, colPart("k"), nil)
			if got.Safe != tc.safe {
				t.Errorf("WHERE %v: NullSafe(k) = %v (%s), want %v", tc.pred, got.Safe, got.Why, tc.safe)
			}
		})
	}
}

func TestNullSafeBareBoolean(t *testing.T) {
	tab := table()
	for _, tc := range []struct {
		pred catalog.Expr
		safe bool
	}{
		{col("flag"), true},
		{not(col("flag")), true},
		{boolTest(col("flag"), "NOT TRUE"), false},
	} {
		ix := uniq("u", tc.pred, colPart("a"), colPart("flag"))
		if got := nullsafe.NullSafe(tab, ix, colPart("flag"), nil); got.Safe != tc.safe {
			t.Errorf("WHERE %v: safe = %v, want %v", tc.pred, got.Safe, tc.safe)
		}
	}
}

func TestNullSafeFromCheck(t *testing.T) {
	k := col("k")
	cases := []struct {
		name  string
		check catalog.Expr
		safe  bool
	}{
		{"k IS NOT NULL", isNotNull(k), true},
		{"NOT (k IS NULL)", not(isNull(k)), true},
		{"num_nulls(k, c) = 0", cmp("=", fn("num_nulls", k, col("c")), lit("0")), true},
		{"num_nonnulls(k) = 1", cmp("=", fn("num_nonnulls", k), lit("1")), true},
		{"conjunct of a larger CHECK", and(cmp(">", col("c"), lit("0")), isNotNull(k)), true},
		// A CHECK passes on NULL: a comparison proves nothing.
		{"k > 0 passes on NULL", cmp(">", k, lit("0")), false},
		{"k = x passes on NULL", cmp("=", k, lit("'x'")), false},
		{"k IS NOT TRUE", boolTest(k, "NOT TRUE"), false},
		{"num_nonnulls(k, c) = 1 alone", cmp("=", fn("num_nonnulls", k, col("c")), lit("1")), false},
		{"disjunction with another column", or(isNotNull(k), isNotNull(col("c"))), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab := table(&catalog.Check{Name: "ck", Expr: tc.check, Validated: true})
			ix := uniq("u", nil, colPart("a"), colPart("k"))
			got := nullsafe.NullSafe(tab, ix, colPart("k"), nil)
			if got.Safe != tc.safe {
				t.Errorf("CHECK %v: safe = %v (%s), want %v", tc.check, got.Safe, got.Why, tc.safe)
			}
		})
	}
}

func TestNullSafeNotValidCheckProvesNothing(t *testing.T) {
	tab := table(&catalog.Check{Name: "k_present", Expr: isNotNull(col("k")), Validated: false})
	ix := uniq("u", nil, colPart("a"), colPart("k"))
	got := nullsafe.NullSafe(tab, ix, colPart("k"), nil)
	if got.Safe {
		t.Fatalf("a NOT VALID CHECK proved k safe (%s)", got.Why)
	}
	if len(got.NotValid) != 1 || got.NotValid[0] != "k_present" {
		t.Errorf("NotValid = %v, want [k_present]", got.NotValid)
	}
}

func TestNullSafeColumnSources(t *testing.T) {
	tab := table()
	tab.Columns = append(tab.Columns, &catalog.Column{Name: "dom", Type: "email", DomainNotNull: true})
	ix := uniq("u", nil, colPart("a"), colPart("dom"))
	for _, part := range []string{"a", "dom"} {
		if !nullsafe.NullSafe(tab, ix, colPart(part), nil).Safe {
			t.Errorf("%s should be safe by its definition", part)
		}
	}
	if nullsafe.NullSafe(tab, ix, colPart("k"), nil).Safe {
		t.Errorf("nullable k reported safe")
	}
}

func TestNullSafeExpressionParts(t *testing.T) {
	cases := []struct {
		name string
		expr catalog.Expr
		safe bool
	}{
		{"coalesce with constant", fn("coalesce", col("k"), lit("''")), true},
		{"coalesce without constant", fn("coalesce", col("k"), col("c")), false},
		{"lower of NOT NULL column", fn("lower", col("a")), true},
		{"lower of nullable column", fn("lower", col("k")), false},
		{"concatenation of NOT NULL columns", op("||", col("a"), lit("'x'")), true},
		{"cast of NOT NULL column", &catalog.Func{Name: "text", Cast: true, Args: []catalog.Expr{col("a")}}, true},
		{"arithmetic", op("+", col("a"), lit("1")), true},
		{"json ->> never provable", op("->>", col("data"), lit("'key'")), false},
		{"nullif", fn("nullif", col("a"), lit("0")), false},
		{"unknown function", fn("mystery", col("a")), false},
		{"CASE", &catalog.Unknown{Text: "CASE WHEN a > 0 THEN a END"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab := table()
			ix := uniq("u", nil, colPart("a"), exprPart(tc.expr))
			if got := nullsafe.NullSafe(tab, ix, exprPart(tc.expr), nil); got.Safe != tc.safe {
				t.Errorf("(%v): safe = %v, want %v", tc.expr, got.Safe, tc.safe)
			}
		})
	}
}

func TestNullSafeExpressionForcedByPredicate(t *testing.T) {
	e := op("->>", col("data"), lit("'key'"))
	ix := uniq("u", isNotNull(e), colPart("a"), exprPart(e))
	if !nullsafe.NullSafe(table(), ix, exprPart(e), nil).Safe {
		t.Errorf("WHERE (data ->> 'key') IS NOT NULL should make the part safe")
	}
	ix2 := uniq("u", nil, colPart("a"), exprPart(fn("lower", col("k"))))
	if !nullsafe.NullSafe(table(), ix2, exprPart(fn("lower", col("k"))), []catalog.Expr{isNotNull(col("k"))}).Safe {
		t.Errorf("lower(k) with k assumed NOT NULL should be safe")
	}
}

func TestNullSafeExtraConjunctAndArc(t *testing.T) {
	arc := &catalog.Check{Name: "arc", Validated: true,
		Expr: cmp("<>", isNotNull(col("c")), isNotNull(col("d")))}
	tab := table(arc)
	ix := uniq("v", nil, colPart("a"), colPart("d"))
	if nullsafe.NullSafe(tab, ix, colPart("d"), nil).Safe {
		t.Errorf("d is nullable without assumptions")
	}
	if !nullsafe.NullSafe(tab, ix, colPart("d"), []catalog.Expr{isNull(col("c"))}).Safe {
		t.Errorf("with c IS NULL, the arc CHECK forces d")
	}
}

func TestCoverageSplit(t *testing.T) {
	tab := table()
	u := uniq("u", nil, colPart("a"), colPart("k"), colPart("c"))
	// c stays nullable but k is made NOT NULL so that only c has a hole.
	tab.Column("k").NotNull = true
	split := uniq("u_null", isNull(col("c")), colPart("a"), colPart("k"))
	tab.Indexes = []*catalog.Index{u, split}
	if v := nullsafe.CoveredBy(tab, u, colPart("c")); v != split {
		t.Fatalf("split not recognised: got %v", v)
	}
	// The same split written NOT (c IS NOT NULL) is the same predicate.
	split.Predicate = not(isNotNull(col("c")))
	if nullsafe.CoveredBy(tab, u, colPart("c")) != split {
		t.Errorf("NOT (c IS NOT NULL) not normalised")
	}
	// A split that drops a different part, or whose predicate is unrelated,
	// covers nothing.
	split.Predicate = isNull(col("d"))
	if nullsafe.CoveredBy(tab, u, colPart("c")) != nil {
		t.Errorf("unrelated predicate covered the hole")
	}
}

func TestCoverageSplitWithItsOwnHole(t *testing.T) {
	tab := table()
	u := uniq("u", nil, colPart("a"), colPart("k"), colPart("c"))
	split := uniq("u_null", isNull(col("c")), colPart("a"), colPart("k")) // k nullable: the split leaks too
	tab.Indexes = []*catalog.Index{u, split}
	if nullsafe.CoveredBy(tab, u, colPart("c")) != nil {
		t.Errorf("a split whose own key part k may be NULL must not cover the hole")
	}
	split.NullsNotDistinct = true
	if nullsafe.CoveredBy(tab, u, colPart("c")) != split {
		t.Errorf("a NULLS NOT DISTINCT split covers the hole")
	}
}

func TestCoverageSplitOfPartialIndex(t *testing.T) {
	tab := table()
	live := isNull(col("d"))
	u := uniq("u", live, colPart("a"), colPart("c"))
	split := uniq("u_null", and(isNull(col("c")), live), colPart("a"))
	tab.Indexes = []*catalog.Index{u, split}
	if nullsafe.CoveredBy(tab, u, colPart("c")) != split {
		t.Errorf("split carrying the partial predicate should cover")
	}
	split.Predicate = and(isNull(col("c")), isNotNull(col("flag")))
	if nullsafe.CoveredBy(tab, u, colPart("c")) != nil {
		t.Errorf("split with a stronger predicate covers only some rows")
	}
}

func TestCoverageExclusiveArc(t *testing.T) {
	arcShapes := map[string]catalog.Expr{
		"<>":              cmp("<>", isNotNull(col("c")), isNotNull(col("d"))),
		"num_nonnulls":    cmp("=", fn("num_nonnulls", col("c"), col("d")), lit("1")),
		"at least one of": or(isNotNull(col("c")), isNotNull(col("d"))),
	}
	for name, check := range arcShapes {
		t.Run(name, func(t *testing.T) {
			tab := table(&catalog.Check{Name: "arc", Expr: check, Validated: true})
			u := uniq("by_c", nil, colPart("a"), colPart("c"))
			v := uniq("by_d", nil, colPart("a"), colPart("d"))
			tab.Indexes = []*catalog.Index{u, v}
			if nullsafe.CoveredBy(tab, u, colPart("c")) != v {
				t.Errorf("hole through c not covered by (a, d)")
			}
			if nullsafe.CoveredBy(tab, v, colPart("d")) != u {
				t.Errorf("hole through d not covered by (a, c)")
			}
			if got := nullsafe.ArcPartners(tab, colPart("c")); len(got) != 1 || got[0] != "d" {
				t.Errorf("ArcPartners(c) = %v, want [d]", got)
			}
		})
	}
}

func TestCoverageArcNeedsValidatedCheck(t *testing.T) {
	tab := table(&catalog.Check{Name: "arc", Validated: false,
		Expr: cmp("<>", isNotNull(col("c")), isNotNull(col("d")))})
	u := uniq("by_c", nil, colPart("a"), colPart("c"))
	v := uniq("by_d", nil, colPart("a"), colPart("d"))
	tab.Indexes = []*catalog.Index{u, v}
	if nullsafe.CoveredBy(tab, u, colPart("c")) != nil {
		t.Errorf("a NOT VALID arc CHECK covered the hole")
	}
}

func TestRuleOnArcOffersNoNullsNotDistinct(t *testing.T) {
	// The arc CHECK exists but the index for the other arm does not: the
	// finding stands, and its only fix is that index.
	tab := table(&catalog.Check{Name: "arc", Validated: true,
		Expr: cmp("<>", isNotNull(col("c")), isNotNull(col("d")))})
	u := uniq("by_c", nil, colPart("a"), colPart("c"))
	tab.Indexes = []*catalog.Index{u}
	cat := catalog.New()
	cat.Schemas["public"].Tables["t"] = tab
	fs := audit.Run(cat, audit.Rules, audit.Options{PGVersion: 16})
	if len(fs) != 1 {
		t.Fatalf("findings = %d, want 1", len(fs))
	}
	for _, fx := range fs[0].Fixes {
		if strings.Contains(fx.SQL, "NULLS NOT DISTINCT") || strings.Contains(fx.SQL, "SET NOT NULL") {
			t.Errorf("fix %q breaks the arc:\n%s", fx.Title, fx.SQL)
		}
	}
	if !strings.Contains(fs[0].Fixes[0].SQL, "(a, d) WHERE c IS NULL") {
		t.Errorf("first fix should index the other arm:\n%s", fs[0].Fixes[0].SQL)
	}
}
