package audit_test

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

// readAs runs the rules on one table, beside the tables others, and
// returns "rule severity" of each finding on its index.
func readAs(t *testing.T, tab *catalog.Table, others ...*catalog.Table) string {
	t.Helper()
	var got []string
	for _, f := range runRules(t, catalogOf(append([]*catalog.Table{tab}, others...)...), 16) {
		got = append(got, f.Rule+" "+f.Severity.String())
	}
	return strings.Join(got, ", ")
}

// TestReadingByStructureThenNames: the role of the part beside a nullable
// one decides hole or unique when present, from structure first.
func TestReadingByStructureThenNames(t *testing.T) {
	cases := []struct {
		name  string
		other catalog.Column
		fk    bool
		check catalog.Expr
		want  string
	}{
		{"a scope by name", catalog.Column{Name: "workspace_id", NotNull: true}, false, nil, "optional-unique info"},
		{"a reference by a table's name", catalog.Column{Name: "person_id", NotNull: true}, false, nil, "optional-unique info"},
		{"camelCase reference", catalog.Column{Name: "runtimeEnvironmentId", NotNull: true}, false, nil, "optional-unique info"},
		{"an id of its own (no table of that name)", catalog.Column{Name: "media_id", NotNull: true}, false, nil, "nullable-key warning"},
		{"a value from outside", catalog.Column{Name: "stripe_charge_id", NotNull: true}, false, nil, "nullable-key warning"},
		{"the row's own number", catalog.Column{Name: "sequential_id", NotNull: true}, false, nil, "nullable-key warning"},
		{"a transaction id", catalog.Column{Name: "transaction_id", NotNull: true}, false, nil, "nullable-key error"},
		{"an identity by default", catalog.Column{Name: "address", NotNull: true}, false, nil, "nullable-key warning"},
		{"a date", catalog.Column{Name: "day", Type: "date", NotNull: true}, false, nil, "nullable-key warning"},
		{"named like a kind", catalog.Column{Name: "event_type", NotNull: true}, false, nil, "optional-unique info"},
		{"a task name", catalog.Column{Name: "taskIdentifier", NotNull: true}, false, nil, "optional-unique info"},
		{"a tenant word", catalog.Column{Name: "account", NotNull: true}, false, nil, "optional-unique info"},
		{"a tenant word, then an identity", catalog.Column{Name: "user_email", NotNull: true}, false, nil, "nullable-key warning"},
		{"a boolean", catalog.Column{Name: "archived", Type: "boolean", NotNull: true}, false, nil, "optional-unique info"},
		{"an enum", catalog.Column{Name: "plan", Enum: true, NotNull: true}, false, nil, "optional-unique info"},
		{"a foreign key without an id name", catalog.Column{Name: "repo", NotNull: true}, true, nil, "optional-unique info"},
		{"listed values", catalog.Column{Name: "grade", NotNull: true}, false,
			cmp("IN", col("grade"), &catalog.List{Items: []catalog.Expr{lit("'a'"), lit("'b'")}}), "optional-unique info"},
		{"listed values, as the server prints them", catalog.Column{Name: "grade", NotNull: true}, false,
			cmp("= ANY", &catalog.Func{Name: "text", Cast: true, Args: []catalog.Expr{col("grade")}}, &catalog.List{}), "optional-unique info"},
		{"values compared one by one", catalog.Column{Name: "grade", NotNull: true}, false,
			or(cmp("=", col("grade"), lit("'a'")), cmp("=", col("grade"), lit("'b'"))), "optional-unique info"},
	}
	for _, tc := range cases {
		other := tc.other
		tab := &catalog.Table{Schema: "public", Name: "items", Columns: []*catalog.Column{&other, {Name: "label"}}}
		if tc.fk {
			tab.ForeignKeys = []*catalog.ForeignKey{{Name: "items_fkey", Columns: []string{other.Name}, RefTable: "public.repos"}}
		}
		if tc.check != nil {
			tab.Checks = []*catalog.Check{{Name: "listed", Expr: tc.check, Validated: true}}
		}
		tab.Indexes = []*catalog.Index{uniq("items_key", nil, colPart(other.Name), colPart("label"))}
		// The tables the names may point at: person_id at people (the
		// inflector's plural), runtimeEnvironmentId at a Prisma model.
		people := &catalog.Table{Schema: "public", Name: "people"}
		env := &catalog.Table{Schema: "public", Name: "RuntimeEnvironment"}
		if got := readAs(t, tab, people, env); got != tc.want {
			t.Errorf("%s (%s, label): %s, want %s", tc.name, other.Name, got, tc.want)
		}
	}
}

// TestUseData: the data counts reorder a hole's fixes and speak in a
// unique-when-present message only on the evidence docs/rules.md asks.
func TestUseData(t *testing.T) {
	hole := onlyFinding(t, runRules(t, catalogOf(eventsTable()), 16))
	counts := func(nulls, rows int64, skipped string) *audit.DataCounts {
		return &audit.DataCounts{Parts: []audit.PartCounts{{Part: "external_subscription_id", NullRows: nulls, Rows: rows, RowsSkipped: skipped}}}
	}
	cases := []struct {
		data  *audit.DataCounts
		first string
	}{
		{counts(0, 1000, ""), "make external_subscription_id NOT NULL"},
		{counts(0, 999, ""), "rebuild index_unique_transaction_id NULLS NOT DISTINCT (PostgreSQL 15 and later)"},
		{counts(3, 5000, ""), "rebuild index_unique_transaction_id NULLS NOT DISTINCT (PostgreSQL 15 and later)"},
		{counts(0, 0, "timed out"), "rebuild index_unique_transaction_id NULLS NOT DISTINCT (PostgreSQL 15 and later)"},
	}
	for _, tc := range cases {
		f := hole
		f.Fixes = append([]audit.Fix(nil), hole.Fixes...)
		f.Data = tc.data
		audit.UseData(&f)
		if f.Fixes[0].Title != tc.first || len(f.Fixes) != len(hole.Fixes) {
			t.Errorf("%+v: fixes start %q (%d), want %q", tc.data.Parts[0], f.Fixes[0].Title, len(f.Fixes), tc.first)
		}
		if tc.first == "make external_subscription_id NOT NULL" && !strings.HasPrefix(f.Fixes[0].Caveat, "Offered first on the data check's evidence: no row of the 1000") {
			t.Errorf("the NOT NULL fix does not say why it comes first: %s", f.Fixes[0].Caveat)
		}
	}

	// The counts settle a hole: NULL rows that already collide make it an
	// error (the hole was used); no NULL row at all says NOT NULL is safe.
	// The warning is the same index in a table whose key has no request id.
	hole.Severity = audit.Warning
	for _, tc := range []struct {
		part     audit.PartCounts
		severity audit.Severity
		tail     string
	}{
		{audit.PartCounts{Part: "external_subscription_id", NullRows: 4, Rows: 50, CollidingGroups: 2}, audit.Error,
			"; live, 2 groups of rows already collide: the hole was used"},
		{audit.PartCounts{Part: "external_subscription_id", NullRows: 0, Rows: 50}, audit.Warning,
			"; live, no row of 50 holds NULL in external_subscription_id: NOT NULL is safe now"},
		{audit.PartCounts{Part: "external_subscription_id", NullRows: 4, Rows: 50, CollidingGroupsSkipped: "timed out"}, audit.Warning,
			"are both accepted"},
	} {
		f := hole
		f.Fixes = append([]audit.Fix(nil), hole.Fixes...)
		f.Data = &audit.DataCounts{Parts: []audit.PartCounts{tc.part}}
		audit.UseData(&f)
		if f.Severity != tc.severity || !strings.HasSuffix(f.Message, tc.tail) {
			t.Errorf("%+v: %s, %s; want %s ending %q", tc.part, f.Severity, f.Message, tc.severity, tc.tail)
		}
	}

	users := &catalog.Table{Schema: "public", Name: "users", Columns: []*catalog.Column{{Name: "email"}}}
	users.Indexes = []*catalog.Index{uniq("users_email_key", nil, colPart("email"))}
	optional := onlyFinding(t, runRules(t, catalogOf(users), 16))
	for _, tc := range []struct {
		nulls, rows int64
		tail        string
	}{
		{0, 2000, "; live, no row of 2000 holds NULL in email: if every row must have one, make it NOT NULL"},
		{0, 10, "; live, no row of 10 holds NULL in email"},
		{7, 2000, "; live, 7 of 2000 rows hold NULL in email"},
	} {
		f := optional
		f.Data = &audit.DataCounts{Parts: []audit.PartCounts{{Part: "email", NullRows: tc.nulls, Rows: tc.rows}}}
		audit.UseData(&f)
		if !strings.HasSuffix(f.Message, tc.tail) || len(f.Fixes) != 0 {
			t.Errorf("%d of %d: %s (%d fixes), want it to end %q and no fix", tc.nulls, tc.rows, f.Message, len(f.Fixes), tc.tail)
		}
	}
}
