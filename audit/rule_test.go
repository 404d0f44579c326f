package audit_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

// catalogOf puts tables into a fresh catalog, each in its own schema field.
func catalogOf(tables ...*catalog.Table) *catalog.Catalog {
	cat := catalog.New()
	for _, t := range tables {
		cat.AddSchema(t.Schema).Tables[t.Name] = t
	}
	return cat
}

// eventsTable is the docs/rules.md example: (organization_id,
// external_subscription_id, transaction_id) with the middle part nullable.
func eventsTable() *catalog.Table {
	return &catalog.Table{
		Schema: "public", Name: "events",
		Columns: []*catalog.Column{
			{Name: "organization_id", Type: "bigint", NotNull: true},
			{Name: "external_subscription_id", Type: "text"},
			{Name: "transaction_id", Type: "text", NotNull: true},
		},
		Indexes: []*catalog.Index{uniq("index_unique_transaction_id", nil,
			colPart("organization_id"), colPart("external_subscription_id"), colPart("transaction_id"))},
	}
}

func runRules(t *testing.T, cat *catalog.Catalog, version int) []audit.Finding {
	t.Helper()
	return audit.Run(cat, audit.Rules, audit.Options{PGVersion: version})
}

func onlyFinding(t *testing.T, fs []audit.Finding) audit.Finding {
	t.Helper()
	if len(fs) != 1 {
		for _, f := range fs {
			t.Logf("%s %s: %s", f.Rule, f.Object, f.Message)
		}
		t.Fatalf("got %d findings, want 1", len(fs))
	}
	return fs[0]
}

func TestNullableKeyMessageAndObject(t *testing.T) {
	f := onlyFinding(t, runRules(t, catalogOf(eventsTable()), 16))
	wantMsg := "events.index_unique_transaction_id (organization_id, external_subscription_id, transaction_id): " +
		"external_subscription_id may be NULL, so two events with the same organization_id and transaction_id " +
		"and no external_subscription_id are both accepted"
	if f.Message != wantMsg {
		t.Errorf("message:\n got %s\nwant %s", f.Message, wantMsg)
	}
	if f.Object != "public.events.index_unique_transaction_id" || f.Rule != "nullable-key" {
		t.Errorf("object %q rule %q", f.Object, f.Rule)
	}
	if len(f.Columns) != 1 || f.Columns[0] != "external_subscription_id" {
		t.Errorf("columns = %v", f.Columns)
	}
	if f.Severity != audit.Error {
		t.Errorf("severity = %v, want error (transaction_id is an idempotency name)", f.Severity)
	}
}

func TestNullableKeySeverityFromNames(t *testing.T) {
	// (team_id, <key>, <nullable>): key is never NULL and identifies the
	// row, so rows without the nullable part are duplicates: a hole.
	long := "memberships_team_id_address_idempotency_key_and_some_more_words"
	cases := []struct {
		table, index, key, nullable string
		want                        audit.Severity
	}{
		{"memberships", "memberships_team_user", "address", "nickname", audit.Warning},
		{"memberships", "memberships_dedup", "address", "nickname", audit.Error},
		{"idempotency_records", "records_scope", "address", "nickname", audit.Error},
		{"job_claims", "job_claims_scope", "address", "nickname", audit.Error},
		// A key part that is never NULL names a request: the index
		// deduplicates requests.
		{"memberships", "memberships_scope", "request_id", "nickname", audit.Error},
		{"memberships", "memberships_scope", "stripe_event_id", "nickname", audit.Error},
		// The nullable part's own name never makes it an error, nor do the
		// column words of a generated name (PostgreSQL's {table}_{cols}_key,
		// Prisma's, Rails', one cut at 63 bytes).
		{"memberships", "memberships_scope", "address", "idempotency_key", audit.Warning},
		{"memberships", "memberships_team_id_address_idempotency_key_key", "address", "idempotency_key", audit.Warning},
		{"Membership", "Membership_team_id_address_idempotency_key_key", "address", "idempotency_key", audit.Warning},
		{"memberships", "index_memberships_on_team_id_and_address_and_idempotency_key", "address", "idempotency_key", audit.Warning},
		{"memberships", long[:63], "address", "idempotency_key_and_some_more_words_and_more", audit.Warning},
	}
	for _, tc := range cases {
		tab := &catalog.Table{Schema: "public", Name: tc.table, Columns: []*catalog.Column{
			{Name: "team_id", NotNull: true}, {Name: tc.key, NotNull: true}, {Name: tc.nullable}}}
		tab.Indexes = []*catalog.Index{uniq(tc.index, nil, colPart("team_id"), colPart(tc.key), colPart(tc.nullable))}
		f := onlyFinding(t, runRules(t, catalogOf(tab), 16))
		if f.Rule != "nullable-key" || f.Severity != tc.want {
			t.Errorf("%s.%s (team_id, %s, %s): %s %v, want nullable-key %v", tc.table, tc.index, tc.key, tc.nullable, f.Rule, f.Severity, tc.want)
		}
	}
}

func TestNullableKeySkipsPrimaryNNDAndPartitionCopies(t *testing.T) {
	tab := eventsTable()
	tab.Indexes[0].NullsNotDistinct = true
	copyTab := eventsTable()
	copyTab.Name = "events_2026"
	copyTab.Indexes[0].ParentIndex = "public.index_unique_transaction_id"
	pk := eventsTable()
	pk.Name = "events_pk"
	pk.Indexes[0].Primary = true
	if fs := runRules(t, catalogOf(tab, copyTab, pk), 16); len(fs) != 0 {
		t.Errorf("findings on NND, partition copy or primary key: %v", fs)
	}
}

func TestNullableKeyRelatedAndNotes(t *testing.T) {
	tab := eventsTable()
	tab.Column("external_subscription_id").NullableSince = catalog.Pos{File: "m/2.sql", Line: 3, Col: 1}
	tab.Indexes[0].Pos = catalog.Pos{File: "m/1.sql", Line: 7, Col: 1}
	tab.Indexes[0].RenamedAt = catalog.Pos{File: "m/3.sql", Line: 1, Col: 1}
	tab.Checks = []*catalog.Check{{Name: "ext_present", Expr: isNotNull(col("external_subscription_id"))}}
	cat := catalogOf(tab)
	hist := &catalog.History{Changes: []catalog.Change{
		{Kind: catalog.ChangeCreateIndex, Pos: tab.Indexes[0].Pos, File: "m/1.sql", Table: "events"},
		{Kind: catalog.ChangeDropNotNull, Pos: tab.Column("external_subscription_id").NullableSince, File: "m/2.sql", Table: "events"},
		{Kind: catalog.ChangeRenameIndex, Pos: tab.Indexes[0].RenamedAt, File: "m/3.sql", Table: "events"},
		{Kind: catalog.ChangeUnmodelled, Pos: catalog.Pos{File: "m/4.sql", Line: 2, Col: 1},
			Table: "events", Object: "DO $$ BEGIN ALTER TABLE events ..."}}}
	f := onlyFinding(t, ofRule(audit.Run(cat, audit.Rules, audit.Options{PGVersion: 16, History: hist}), "nullable-key"))
	// The rename is the last statement that opened the hole or renamed the
	// index, so the finding is placed there (docs/rules.md, "Messages and positions").
	if f.Pos != tab.Indexes[0].RenamedAt {
		t.Errorf("Pos = %v, want the rename's", f.Pos)
	}
	if len(f.Related) != 2 || f.Related[0].Pos.File != "m/1.sql" ||
		f.Related[1].Message != "external_subscription_id lost NOT NULL here" || f.Related[1].Pos.File != "m/2.sql" {
		t.Errorf("related = %+v", f.Related)
	}
	notes := strings.Join(f.Notes, "\n")
	if !strings.Contains(notes, "ext_present") || !strings.Contains(notes, "NOT VALID") {
		t.Errorf("no NOT VALID note: %q", notes)
	}
	if !strings.Contains(notes, "replay could not follow") || !strings.Contains(notes, "m/4.sql:2:1") {
		t.Errorf("no unmodelled note: %q", notes)
	}
}

func TestNullableKeyPartialAndExpressionWording(t *testing.T) {
	tab := &catalog.Table{Schema: "shop", Name: "customers", Columns: []*catalog.Column{
		{Name: "account_id", NotNull: true}, {Name: "handle", NotNull: true}, {Name: "email"}, {Name: "deleted_at"}}}
	tab.Indexes = []*catalog.Index{uniq("customers_email", isNull(col("deleted_at")),
		colPart("account_id"), colPart("handle"), exprPart(fn("lower", col("email"))))}
	f := onlyFinding(t, runRules(t, catalogOf(tab), 16))
	want := "shop.customers.customers_email (account_id, handle, (lower(email))): lower(email) may be NULL, so among rows " +
		"where deleted_at IS NULL, two customers with the same account_id and handle and a NULL lower(email) are both accepted"
	if f.Message != want {
		t.Errorf("message:\n got %s\nwant %s", f.Message, want)
	}
	if f.Object != "shop.customers.customers_email" {
		t.Errorf("object %q", f.Object)
	}
}

func TestFixesForVersion(t *testing.T) {
	titles := func(fs []audit.Fix) string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Title)
		}
		return strings.Join(out, " | ")
	}
	// NULL is meaningful where a row without the part keeps an identity:
	// the fixes that keep it and make it count come first, NOT NULL last.
	for _, v := range []int{13, 14} {
		f := onlyFinding(t, runRules(t, catalogOf(eventsTable()), v))
		for _, fx := range f.Fixes {
			if strings.Contains(fx.SQL, "NULLS NOT DISTINCT") {
				t.Errorf("PostgreSQL %d got a NULLS NOT DISTINCT fix", v)
			}
		}
		want := "add a partial unique index for rows where external_subscription_id is NULL | make external_subscription_id NOT NULL"
		if got := titles(f.Fixes); got != want {
			t.Errorf("PostgreSQL %d: fixes %s, want %s", v, got, want)
		}
	}
	for _, v := range []int{15, 16, 18} {
		f := onlyFinding(t, runRules(t, catalogOf(eventsTable()), v))
		want := "rebuild index_unique_transaction_id NULLS NOT DISTINCT (PostgreSQL 15 and later) | " +
			"add a partial unique index for rows where external_subscription_id is NULL | make external_subscription_id NOT NULL"
		if got := titles(f.Fixes); got != want {
			t.Errorf("PostgreSQL %d: fixes %s, want %s", v, got, want)
		}
	}
}

func TestFixSQL(t *testing.T) {
	f := onlyFinding(t, runRules(t, catalogOf(eventsTable()), 16))
	nnd, split, notNull := f.Fixes[0], f.Fixes[1], f.Fixes[2]
	wantNotNull := `ALTER TABLE events ADD CONSTRAINT events_external_subscription_id_not_null_tmp CHECK (external_subscription_id IS NOT NULL) NOT VALID;
ALTER TABLE events VALIDATE CONSTRAINT events_external_subscription_id_not_null_tmp;
ALTER TABLE events ALTER COLUMN external_subscription_id SET NOT NULL;
ALTER TABLE events DROP CONSTRAINT events_external_subscription_id_not_null_tmp;`
	if notNull.SQL != wantNotNull || notNull.NoTransaction {
		t.Errorf("NOT NULL fix:\n%s", notNull.SQL)
	}
	wantNND := `CREATE UNIQUE INDEX CONCURRENTLY index_unique_transaction_id_nnd ON events (organization_id, external_subscription_id, transaction_id) NULLS NOT DISTINCT;
DROP INDEX CONCURRENTLY index_unique_transaction_id;
ALTER INDEX index_unique_transaction_id_nnd RENAME TO index_unique_transaction_id;`
	if nnd.SQL != wantNND || !nnd.NoTransaction || !strings.Contains(nnd.Caveat, "NULL then equals NULL") {
		t.Errorf("NND fix:\n%s\n%s", nnd.SQL, nnd.Caveat)
	}
	wantSplit := `CREATE UNIQUE INDEX CONCURRENTLY index_unique_transaction_id_external_subscription_id_null ON events (organization_id, transaction_id) WHERE external_subscription_id IS NULL;`
	if split.SQL != wantSplit || !split.NoTransaction {
		t.Errorf("split fix:\n%s", split.SQL)
	}
	wantPre := `SELECT organization_id, transaction_id, count(*) FROM events WHERE external_subscription_id IS NULL GROUP BY organization_id, transaction_id HAVING count(*) > 1;`
	if split.Precheck != wantPre || nnd.Precheck != wantPre {
		t.Errorf("precheck:\n%s", split.Precheck)
	}
	if !strings.Contains(notNull.Precheck, "WHERE external_subscription_id IS NULL") {
		t.Errorf("NOT NULL precheck: %s", notNull.Precheck)
	}
}

func TestFixConstraintSwapAndQuoting(t *testing.T) {
	tab := &catalog.Table{Schema: "Billing", Name: "Transfers", Columns: []*catalog.Column{
		{Name: "account_id", NotNull: true}, {Name: "ref", NotNull: true}, {Name: "order"}}}
	ix := uniq("Transfers_account_id_ref_order_key", nil, colPart("account_id"), colPart("ref"), colPart("order"))
	ix.Constraint = ix.Name
	ix.Deferrable = true
	tab.Indexes = []*catalog.Index{ix}
	f := onlyFinding(t, ofRule(runRules(t, catalogOf(tab), 16), "nullable-key"))
	nnd := f.Fixes[0].SQL
	want := `CREATE UNIQUE INDEX CONCURRENTLY "Transfers_account_id_ref_order_key_nnd" ON "Billing"."Transfers" (account_id, ref, "order") NULLS NOT DISTINCT;
ALTER TABLE "Billing"."Transfers" DROP CONSTRAINT "Transfers_account_id_ref_order_key", ADD CONSTRAINT "Transfers_account_id_ref_order_key" UNIQUE USING INDEX "Transfers_account_id_ref_order_key_nnd" DEFERRABLE;`
	if nnd != want {
		t.Errorf("constraint swap:\n got %s\nwant %s", nnd, want)
	}
}

func TestFixNamesFitAndAvoidClashes(t *testing.T) {
	long := strings.Repeat("é", 30) + "_idx" // 64 bytes: longer than PostgreSQL keeps
	tab := eventsTable()
	tab.Indexes[0].Name = long[:62]
	// Taken names: the obvious generated ones already exist.
	tab.Indexes = append(tab.Indexes, &catalog.Index{Name: "index_unused_nnd"})
	f := onlyFinding(t, runRules(t, catalogOf(tab), 16))
	ident := regexp.MustCompile(`(?:INDEX CONCURRENTLY|CONSTRAINT|INDEX) ("[^"]+"|[a-z_0-9]+)`)
	for _, fx := range f.Fixes {
		for _, m := range ident.FindAllStringSubmatch(fx.SQL, -1) {
			name := strings.Trim(m[1], `"`)
			if len(name) > 63 {
				t.Errorf("%q is %d bytes", name, len(name))
			}
			if !strings.HasSuffix(name, "_nnd") && !strings.HasSuffix(name, "_null") &&
				!strings.HasSuffix(name, "_tmp") && name != tab.Indexes[0].Name && name != "CONCURRENTLY" {
				t.Errorf("unexpected name %q in %s", name, fx.SQL)
			}
		}
		if !utf8Valid(fx.SQL) {
			t.Errorf("fix cut a character in half: %q", fx.SQL)
		}
	}
}

func TestFixNameClash(t *testing.T) {
	tab := eventsTable()
	tab.Indexes = append(tab.Indexes, &catalog.Index{Name: "index_unique_transaction_id_nnd"})
	f := onlyFinding(t, runRules(t, catalogOf(tab), 16))
	if !strings.Contains(f.Fixes[0].SQL, "CONCURRENTLY index_unique_transaction_id_nnd1 ON") {
		t.Errorf("clash not avoided:\n%s", f.Fixes[0].SQL)
	}
}

func TestSplitGrowsWithNullableParts(t *testing.T) {
	tab := &catalog.Table{Schema: "public", Name: "bookings", Columns: []*catalog.Column{
		{Name: "venue_id", NotNull: true}, {Name: "a"}, {Name: "b"}, {Name: "c"}}}
	tab.Indexes = []*catalog.Index{uniq("bookings_abc", nil, colPart("venue_id"), colPart("a"), colPart("b"), colPart("c"))}
	f := onlyFinding(t, runRules(t, catalogOf(tab), 16))
	split := f.Fixes[1]
	if n := strings.Count(split.SQL, "CREATE UNIQUE INDEX"); n != 7 {
		t.Errorf("split of 3 nullable parts has %d indexes, want 7:\n%s", n, split.SQL)
	}
	if !strings.Contains(split.Caveat, "2^k") {
		t.Errorf("no 2^k caveat: %s", split.Caveat)
	}
	if !strings.Contains(split.SQL, "(venue_id, b, c) WHERE a IS NULL AND b IS NOT NULL AND c IS NOT NULL;") ||
		!strings.Contains(split.SQL, "(venue_id) WHERE a IS NULL AND b IS NULL AND c IS NULL;") {
		t.Errorf("split:\n%s", split.SQL)
	}
	if !strings.Contains(split.Precheck, "WHERE ((a IS NULL) OR (b IS NULL) OR (c IS NULL)) GROUP BY venue_id, a, b, c") {
		t.Errorf("precheck: %s", split.Precheck)
	}
	two := &catalog.Table{Schema: "public", Name: "pairs", Columns: []*catalog.Column{
		{Name: "venue_id", NotNull: true}, {Name: "a"}, {Name: "b"}}}
	two.Indexes = []*catalog.Index{uniq("pairs_ab", nil, colPart("venue_id"), colPart("a"), colPart("b"))}
	f2 := onlyFinding(t, runRules(t, catalogOf(two), 16))
	if c := f2.Fixes[1].Caveat; strings.Contains(c, "2^k") {
		t.Errorf("2^k caveat with two nullable parts: %s", c)
	}
}

func TestOptionalUnique(t *testing.T) {
	tab := &catalog.Table{Schema: "public", Name: "users", Columns: []*catalog.Column{{Name: "email"}}}
	tab.Indexes = []*catalog.Index{uniq("users_email_key", nil, colPart("email"))}
	f := onlyFinding(t, runRules(t, catalogOf(tab), 16))
	if f.Rule != "optional-unique" || f.Severity != audit.Info {
		t.Errorf("rule %s severity %v", f.Rule, f.Severity)
	}
	tab.Indexes[0].Predicate = isNotNull(col("email"))
	if fs := runRules(t, catalogOf(tab), 16); len(fs) != 0 {
		t.Errorf("unique-when-present index reported: %v", fs[0].Message)
	}
}

func TestRulesAreDocumented(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	for _, r := range audit.Rules {
		if !kebab.MatchString(r.ID) || r.Title == "" || strings.ToLower(r.Title) != r.Title ||
			strings.HasSuffix(r.Title, ".") || r.Doc == "" || r.Bad == "" || r.Good == "" || r.Run == nil {
			t.Errorf("rule %q is missing id, title, doc, examples or Run", r.ID)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestArcFixPrecheckGroupsByTheNewIndex(t *testing.T) {
	tab := table(&catalog.Check{Name: "arc", Validated: true,
		Expr: cmp("<>", isNotNull(col("c")), isNotNull(col("d")))})
	tab.Indexes = []*catalog.Index{uniq("by_c", nil, colPart("a"), colPart("c"))}
	f := onlyFinding(t, runRules(t, catalogOf(tab), 16))
	want := "SELECT a, d, count(*) FROM t WHERE c IS NULL GROUP BY a, d HAVING count(*) > 1;"
	if len(f.Fixes) != 1 || f.Fixes[0].Precheck != want {
		t.Errorf("arc precheck = %q, want %q", f.Fixes[0].Precheck, want)
	}
}
