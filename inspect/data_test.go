package inspect

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/audit"
)

const dataSchema = `
CREATE TABLE events (org int NOT NULL, sub text, tx text, kind text);
CREATE UNIQUE INDEX events_key ON events (org, sub, tx);
CREATE UNIQUE INDEX events_charge ON events (org, lower(tx)) WHERE kind = 'charge';
CREATE TABLE clean (org int NOT NULL, ref text);
CREATE UNIQUE INDEX clean_key ON clean (org, ref);
-- sub is NULL in four rows; (1, NULL, 'a') twice and (2, NULL, 'b') three
-- times are the hole being used: two colliding groups. tx is NULL once.
INSERT INTO events VALUES
  (1, NULL, 'a', 'charge'), (1, NULL, 'a', 'refund'), (1, 'x', 'a', 'refund'),
  (2, NULL, 'b', NULL), (2, NULL, 'b', NULL), (2, NULL, 'b', NULL), (3, 'y', NULL, 'charge');
INSERT INTO clean VALUES (1, 'a'), (2, 'b');
`

func checkFor(t *testing.T, snap *Snapshot, table, index string, parts ...string) DataCheck {
	t.Helper()
	tb := snap.Catalog.ResolveTable("", table)
	if tb == nil || tb.Index(index) == nil {
		t.Fatalf("%s.%s not read", table, index)
	}
	return DataCheck{Table: tb, Index: tb.Index(index), Parts: parts}
}

func TestCheckDataCounts(t *testing.T) {
	s, snap := readTest(t, newTestDB(t, dataSchema), Filter{})
	checks := []DataCheck{
		checkFor(t, snap, "events", "events_key", "sub", "tx"),
		checkFor(t, snap, "clean", "clean_key", "ref"),
		checkFor(t, snap, "events", "events_charge", "(lower(tx))"),
	}
	var calls atomic.Int64
	got := s.CheckData(context.Background(), snap, checks, func(done, total int, object string) {
		calls.Add(1)
		if total != 11 || done > total {
			t.Errorf("progress %d of %d", done, total)
		}
	})
	// Rows is what the index covers: every events row, both clean rows,
	// the three events rows whose kind is 'charge'.
	want := [][]PartData{
		{{"sub", Count{N: 5}, Count{N: 2}, Count{N: 7}}, {"tx", Count{N: 1}, Count{N: 0}, Count{N: 7}}},
		{{"ref", Count{N: 0}, Count{N: 0}, Count{N: 2}}},
		{{"(lower(tx))", Count{N: 1}, Count{N: 0}, Count{N: 2}}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counts\n got %v\nwant %v", got, want)
	}
	if calls.Load() == 0 {
		t.Error("progress was never reported")
	}
}

// A count that runs out of time is skipped, and the transaction goes on to
// the next one. The table is locked by another session, so the count waits
// until lock_timeout stops it: no race with the clock.
func TestCheckDataTimeoutIsSkipped(t *testing.T) {
	dsn := newTestDB(t, dataSchema)
	s, err := Open(context.Background(), Config{DSN: dsn, Timeout: 300 * time.Millisecond, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	snap, err := s.ReadCatalog(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	locker := connectTo(t, dsn)
	ctx := context.Background()
	if _, err := locker.Exec(ctx, "BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	defer locker.Exec(ctx, "ROLLBACK")
	got := s.CheckData(ctx, snap, []DataCheck{
		checkFor(t, snap, "events", "events_key", "sub"),
		checkFor(t, snap, "clean", "clean_key", "ref"),
	}, nil)
	if len(got[0]) != 1 || got[0][0].NullRows.Skipped == "" || got[0][0].CollidingGroups.Skipped == "" {
		t.Fatalf("locked table: %+v, want both counts skipped", got[0])
	}
	if !strings.Contains(got[0][0].NullRows.Skipped, "--timeout") {
		t.Errorf("skip reason %q does not point at --timeout", got[0][0].NullRows.Skipped)
	}
	if got[1][0].NullRows != (Count{N: 0}) {
		t.Errorf("the next count after a timeout = %+v, want 0 rows", got[1][0].NullRows)
	}
}

// A role that may only connect reads the catalog; its data checks are
// skipped for lack of privilege, not failed.
func TestConnectOnlyRole(t *testing.T) {
	dsn := newTestDB(t, dataSchema+`REVOKE ALL ON SCHEMA public FROM PUBLIC;`)
	admin := adminConn(t)
	ctx := context.Background()
	role := fmt.Sprintf("idemcheck_reader_%d", os.Getpid())
	if _, err := admin.Exec(ctx, "CREATE ROLE "+role+" LOGIN"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec(ctx, "DROP ROLE IF EXISTS "+role)
		admin.Close(ctx)
	})
	s, snap := readTest(t, withUser(t, dsn, role), Filter{})
	if snap.Tables != 2 || snap.Indexes != 3 {
		t.Fatalf("read %d tables, %d indexes as %s; want 2 and 3", snap.Tables, snap.Indexes, role)
	}
	// The rules see the same catalog as the owner's: same findings.
	opts := audit.Options{PGVersion: s.ServerMajor(), Live: true}
	_, ownerSnap := readTest(t, dsn, Filter{})
	asReader, asOwner := findingKeys(audit.Run(snap.Catalog, audit.Rules, opts)), findingKeys(audit.Run(ownerSnap.Catalog, audit.Rules, opts))
	if len(asOwner) == 0 || !slices.Equal(asReader, asOwner) {
		t.Errorf("findings as %s %q, as the owner %q", role, asReader, asOwner)
	}
	got := s.CheckData(ctx, snap, []DataCheck{checkFor(t, snap, "events", "events_key", "sub")}, nil)
	if skip := got[0][0].NullRows.Skipped; !strings.Contains(skip, "privilege") {
		t.Errorf("data check as %s: %+v, want skipped for lack of privilege", role, got[0][0])
	}
}

// default_transaction_read_only = on must not stop inspect.
func TestReadOnlyDatabase(t *testing.T) {
	dsn := newTestDB(t, dataSchema)
	admin := adminConn(t)
	defer admin.Close(context.Background())
	name := databaseOf(t, dsn)
	if _, err := admin.Exec(context.Background(), "ALTER DATABASE "+name+" SET default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
	s, snap := readTest(t, dsn, Filter{})
	if snap.Tables != 2 {
		t.Errorf("read %d tables, want 2", snap.Tables)
	}
	got := s.CheckData(context.Background(), snap, []DataCheck{checkFor(t, snap, "events", "events_key", "sub")}, nil)
	if got[0][0].NullRows != (Count{N: 5}) {
		t.Errorf("data check in a read-only database: %+v", got[0][0])
	}
}

// The live-only rule finds the index a failed concurrent build left behind.
func TestInvalidUniqueIndexRule(t *testing.T) {
	dsn := newTestDB(t, `CREATE TABLE pay (org int NOT NULL, ref text NOT NULL); INSERT INTO pay VALUES (1, 'a'), (1, 'a');`)
	if _, err := connectTo(t, dsn).Exec(context.Background(), `CREATE UNIQUE INDEX CONCURRENTLY pay_org_ref ON pay (org, ref)`); err == nil {
		t.Fatal("the concurrent build over duplicate rows succeeded")
	}
	s, snap := readTest(t, dsn, Filter{})
	findings := audit.Run(snap.Catalog, []*audit.Rule{audit.InvalidUniqueIndex}, audit.Options{PGVersion: s.ServerMajor(), Live: true})
	if len(findings) != 1 || findings[0].Object != "public.pay.pay_org_ref" || findings[0].Severity != audit.Error {
		t.Fatalf("findings = %+v, want one error on public.pay.pay_org_ref", findings)
	}
	// The precheck the fix offers must run and find the duplicate.
	var n int
	rows, err := connectTo(t, dsn).Query(context.Background(), strings.TrimSuffix(findings[0].Fixes[0].Precheck, ";"))
	if err != nil {
		t.Fatalf("precheck %q: %v", findings[0].Fixes[0].Precheck, err)
	}
	for rows.Next() {
		n++
	}
	if rows.Err() != nil || n != 1 {
		t.Errorf("precheck found %d groups (%v), want 1", n, rows.Err())
	}
	// Without Live the rule does not run: replay knows nothing of validity.
	if fs := audit.Run(snap.Catalog, []*audit.Rule{audit.InvalidUniqueIndex}, audit.Options{PGVersion: 15}); len(fs) != 0 {
		t.Errorf("ran without Live: %+v", fs)
	}
}
