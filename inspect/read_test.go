package inspect

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

func openTest(t testing.TB, dsn string) *Session {
	t.Helper()
	s, err := Open(context.Background(), Config{DSN: dsn, Timeout: 10 * time.Second, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

func readTest(t testing.TB, dsn string, f Filter) (*Session, *Snapshot) {
	t.Helper()
	s := openTest(t, dsn)
	snap, err := s.ReadCatalog(context.Background(), f)
	if err != nil {
		t.Fatalf("ReadCatalog: %v", err)
	}
	return s, snap
}

const readSchema = `
CREATE DOMAIN email AS text NOT NULL;
CREATE DOMAIN work_email AS email;
CREATE DOMAIN maybe_text AS text;
CREATE SCHEMA billing;
CREATE TABLE billing.events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org bigint NOT NULL,
  sub text,
  tx text,
  kind text,
  owner work_email,
  note maybe_text,
  total numeric GENERATED ALWAYS AS (1) STORED,
  CONSTRAINT events_org_sub_tx_key UNIQUE (org, sub, tx) DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT tx_present CHECK (tx IS NOT NULL)
);
ALTER TABLE billing.events ADD CONSTRAINT sub_present CHECK (sub IS NOT NULL) NOT VALID;
CREATE UNIQUE INDEX events_kind ON billing.events (org, lower(tx)) INCLUDE (kind) WHERE kind = 'charge';
CREATE UNIQUE INDEX events_nnd ON billing.events (org, sub) {{nnd}};
CREATE INDEX events_plain ON billing.events (kind);
CREATE TABLE ledger (acct bigint, ref text, day date NOT NULL) PARTITION BY RANGE (day);
CREATE UNIQUE INDEX ledger_ref ON ledger (acct, ref, day);
CREATE TABLE ledger_2026 PARTITION OF ledger FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE TABLE base (a int);
CREATE TABLE child (b int) INHERITS (base);
`

// readSchemaFor is readSchema for the test server: NULLS NOT DISTINCT only
// where the server has it (15 and later).
func readSchemaFor(t *testing.T) string {
	nnd := ""
	if pgtest.ServerVersionNum(t) >= 150000 {
		nnd = "NULLS NOT DISTINCT"
	}
	return strings.ReplaceAll(readSchema, "{{nnd}}", nnd)
}

func TestReadCatalog(t *testing.T) {
	s, snap := readTest(t, newTestDB(t, readSchemaFor(t)), Filter{})
	cat := snap.Catalog

	if got := s.RoundTrips(); got != 2 {
		t.Errorf("round trips = %d, want 2 (BEGIN with SETs, then one catalog batch)", got)
	}
	if cat.ServerVersion < MinServerVersion {
		t.Errorf("ServerVersion = %d", cat.ServerVersion)
	}
	for _, name := range []string{"pg_catalog", "information_schema", "pg_toast"} {
		if cat.Schema(name) != nil {
			t.Errorf("system schema %s was read", name)
		}
	}
	if !reflect.DeepEqual(cat.SearchPath, []string{"public"}) {
		t.Errorf("SearchPath = %v, want [public]", cat.SearchPath)
	}

	ev := cat.ResolveTable("billing", "events")
	if ev == nil {
		t.Fatalf("billing.events not read; tables: %v", tableNames(cat))
	}
	wantCols := map[string]catalog.Column{
		"id":    {Name: "id", Type: "bigint", NotNull: true, Identity: true},
		"org":   {Name: "org", Type: "bigint", NotNull: true},
		"sub":   {Name: "sub", Type: "text"},
		"owner": {Name: "owner", Type: "work_email", DomainNotNull: true},
		"note":  {Name: "note", Type: "maybe_text"},
		"total": {Name: "total", Type: "numeric", Generated: true},
	}
	for name, want := range wantCols {
		got := ev.Column(name)
		if got == nil {
			t.Errorf("column %s missing", name)
			continue
		}
		plain := *got
		plain.Generation = nil
		if plain != want {
			t.Errorf("column %s = %+v, want %+v", name, got, want)
		}
	}
	if g := ev.Column("total").Generation; g == nil || g.String() != "1" {
		t.Errorf("total's generation expression = %v, want 1", g)
	}
	if len(ev.Columns) != 8 || ev.Columns[0].Name != "id" || ev.Columns[7].Name != "total" {
		t.Errorf("columns out of order: %v", columnNames(ev))
	}

	if ck := ev.Check("sub_present"); ck == nil || ck.Validated || !strings.Contains(ck.Expr.String(), "sub IS NOT NULL") {
		t.Errorf("sub_present = %+v, want NOT VALID check on sub", ck)
	}
	if ck := ev.Check("tx_present"); ck == nil || !ck.Validated {
		t.Errorf("tx_present = %+v, want a validated check", ck)
	}

	pk := ev.Index("events_pkey")
	if pk == nil || !pk.Primary || !pk.Unique || pk.Constraint != "events_pkey" || !reflect.DeepEqual(pk.PartNames(), []string{"id"}) {
		t.Errorf("events_pkey = %+v", pk)
	}
	uq := ev.Index("events_org_sub_tx_key")
	if uq == nil || uq.Constraint != "events_org_sub_tx_key" || !uq.Deferrable || !uq.InitiallyDeferred ||
		!reflect.DeepEqual(uq.PartNames(), []string{"org", "sub", "tx"}) || uq.Predicate != nil || uq.NullsNotDistinct {
		t.Errorf("events_org_sub_tx_key = %+v", uq)
	}
	kind := ev.Index("events_kind")
	if kind == nil || kind.Constraint != "" || !reflect.DeepEqual(kind.Include, []string{"kind"}) || len(kind.Parts) != 2 ||
		kind.Parts[0].Column != "org" || kind.Parts[1].Expr == nil || kind.Predicate == nil {
		t.Fatalf("events_kind = %+v", kind)
	}
	if text := snap.IndexText[kind]; text == nil || !reflect.DeepEqual(text.Parts, []string{"org", "lower(tx)"}) || text.Predicate != "kind = 'charge'::text" {
		t.Errorf("events_kind server text = %+v", text)
	}
	// Server text goes through sqlparse into the same form replay builds.
	if cmp, ok := kind.Predicate.(*catalog.Compare); !ok || cmp.Op != "=" || !reflect.DeepEqual(catalog.ColumnsOf(cmp), []string{"kind"}) {
		t.Errorf("predicate = %#v, want a comparison on kind", kind.Predicate)
	}
	if nt, ok := ev.Check("tx_present").Expr.(*catalog.NullTest); !ok || nt.IsNull {
		t.Errorf("tx_present = %#v, want an IS NOT NULL test", ev.Check("tx_present").Expr)
	}
	if f, ok := kind.Parts[1].Expr.(*catalog.Func); !ok || f.Name != "lower" {
		t.Errorf("expression part = %s, want lower(tx)", kind.Parts[1].Expr)
	}
	if nnd := ev.Index("events_nnd"); nnd == nil || nnd.NullsNotDistinct != (s.ServerVersion >= 150000) {
		t.Errorf("events_nnd = %+v, want NULLS NOT DISTINCT on 15+", nnd)
	}
	if plain := ev.Index("events_plain"); plain == nil || plain.Unique || !plain.Valid || !plain.Ready || plain.Method != "btree" {
		t.Errorf("events_plain = %+v", plain)
	}

	ledger := cat.ResolveTable("", "ledger")
	part := cat.ResolveTable("public", "ledger_2026")
	if ledger == nil || ledger.Kind != catalog.Partitioned || part == nil || part.PartitionOf != "public.ledger" || part.Kind != catalog.Ordinary {
		t.Fatalf("ledger = %+v, ledger_2026 = %+v", ledger, part)
	}
	if len(part.Indexes) != 1 || part.Indexes[0].ParentIndex != "public.ledger_ref" || !part.Indexes[0].Unique {
		t.Errorf("partition indexes = %+v, want a copy of public.ledger_ref", part.Indexes)
	}
	if child := cat.ResolveTable("", "child"); child == nil || !reflect.DeepEqual(child.Inherits, []string{"public.base"}) || child.PartitionOf != "" {
		t.Errorf("child = %+v, want INHERITS public.base", child)
	}
	if d := cat.ResolveDomain("public", "work_email"); d == nil || !d.NotNull || d.Type != "email" {
		t.Errorf("domain work_email = %+v, want NOT NULL through email", d)
	}
}

func TestFilter(t *testing.T) {
	dsn := newTestDB(t, readSchemaFor(t))
	_, snap := readTest(t, dsn, Filter{Schemas: []string{"bill*"}})
	if got := tableNames(snap.Catalog); !reflect.DeepEqual(got, []string{"billing.events"}) {
		t.Errorf("--schema bill*: tables %v", got)
	}
	_, snap = readTest(t, dsn, Filter{Tables: []string{"ledger*"}})
	if got := tableNames(snap.Catalog); !reflect.DeepEqual(got, []string{"public.ledger", "public.ledger_2026"}) {
		t.Errorf("--table ledger*: tables %v", got)
	}
	_, snap = readTest(t, dsn, Filter{Tables: []string{"public.*e"}})
	if got := tableNames(snap.Catalog); !reflect.DeepEqual(got, []string{"public.base"}) {
		t.Errorf("--table public.*e: tables %v", got)
	}
	_, snap = readTest(t, dsn, Filter{Schemas: []string{"pg_catalog"}})
	if got := tableNames(snap.Catalog); len(got) != 0 {
		t.Errorf("--schema pg_catalog read %v; system schemas are never audited", got)
	}
}

func TestFilterValidate(t *testing.T) {
	if err := (Filter{Tables: []string{"[a-"}}).Validate(); err == nil {
		t.Error("a malformed glob was accepted")
	}
	for _, name := range []string{"pg_catalog", "information_schema", "pg_toast", "pg_temp_3", "pg_toast_temp_3"} {
		if !SystemSchema(name) {
			t.Errorf("SystemSchema(%q) = false", name)
		}
	}
	if SystemSchema("pg_tempest") || SystemSchema("public") {
		t.Error("a user schema was taken for a system schema")
	}
}

// The number of round trips must not grow with the database.
func TestRoundTripsFixed(t *testing.T) {
	small, _ := readTest(t, newTestDB(t, `CREATE TABLE t (a int UNIQUE)`), Filter{})
	big, snap := readTest(t, newTestDB(t, `DO $$ BEGIN FOR i IN 1..60 LOOP
		EXECUTE format('CREATE TABLE t%s (a int, b int, c text CHECK (c <> ''''), UNIQUE (a, b))', i);
		EXECUTE format('CREATE UNIQUE INDEX t%s_c ON t%s (lower(c)) WHERE a > 0', i, i);
	END LOOP; END $$`), Filter{})
	if snap.Tables != 60 || snap.Indexes != 120 {
		t.Fatalf("read %d tables and %d indexes, want 60 and 120", snap.Tables, snap.Indexes)
	}
	if small.RoundTrips() != big.RoundTrips() {
		t.Errorf("round trips: %d for 1 table, %d for 60", small.RoundTrips(), big.RoundTrips())
	}
}

func TestInvalidIndexRead(t *testing.T) {
	dsn := newTestDB(t, `CREATE TABLE pay (org int, ref text); INSERT INTO pay VALUES (1, 'a'), (1, 'a');`)
	admin := connectTo(t, dsn)
	// A concurrent build cannot run in a transaction block, and fails on
	// the duplicate rows, leaving the index behind marked not valid.
	if _, err := admin.Exec(context.Background(), `CREATE UNIQUE INDEX CONCURRENTLY pay_org_ref ON pay (org, ref)`); err == nil {
		t.Fatal("the concurrent build over duplicate rows succeeded")
	}
	_, snap := readTest(t, dsn, Filter{})
	ix := snap.Catalog.ResolveTable("", "pay").Index("pay_org_ref")
	if ix == nil || ix.Valid || !ix.Unique {
		t.Errorf("pay_org_ref = %+v, want unique and not valid", ix)
	}
}

func tableNames(cat *catalog.Catalog) []string {
	var out []string
	for _, t := range cat.Tables() {
		out = append(out, t.QualifiedName())
	}
	return out
}

func columnNames(t *catalog.Table) []string {
	var out []string
	for _, c := range t.Columns {
		out = append(out, c.Name)
	}
	return out
}

// TestAttachReadsOnTheCallersConnection: Attach reads the catalog on a
// connection the caller holds (a pool's session), and Close ends the
// read-only transaction but leaves the connection open and idle.
func TestAttachReadsOnTheCallersConnection(t *testing.T) {
	dsn := newTestDB(t, `CREATE TABLE t (a int, b text, UNIQUE (a, b))`)
	conn := connectTo(t, dsn)
	s, err := Attach(context.Background(), conn, time.Second)
	if err != nil {
		t.Fatalf("Attach: %v", err)
	}
	snap, err := s.ReadCatalog(context.Background(), Filter{})
	if err != nil {
		t.Fatalf("ReadCatalog: %v", err)
	}
	if snap.Tables != 1 || snap.Indexes != 1 {
		t.Errorf("read %d tables and %d indexes, want 1 and 1", snap.Tables, snap.Indexes)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if conn.IsClosed() || conn.PgConn().TxStatus() != 'I' {
		t.Fatal("the caller's connection was closed, or left inside the read-only transaction")
	}
	if _, err := conn.Exec(context.Background(), `INSERT INTO t VALUES (1, 'x')`); err != nil {
		t.Errorf("the connection cannot write after Close: %v", err)
	}
}
