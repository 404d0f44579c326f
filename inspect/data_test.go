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

// checkData runs the checks and fails t when they stopped.
func checkData(t *testing.T, s *Session, snap *Snapshot, checks ...DataCheck) [][]PartData {
	t.Helper()
	res, err := s.CheckData(context.Background(), snap, checks, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Parts
}

func TestCheckDataCounts(t *testing.T) {
	s, snap := readTest(t, newTestDB(t, dataSchema), Filter{})
	checks := []DataCheck{
		checkFor(t, snap, "events", "events_key", "sub", "tx"),
		checkFor(t, snap, "clean", "clean_key", "ref"),
		checkFor(t, snap, "events", "events_charge", "(lower(tx))"),
	}
	var calls atomic.Int64
	res, err := s.CheckData(context.Background(), snap, checks, func(done, total int, object string) {
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
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Parts; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counts\n got %v\nwant %v", got, want)
	}
	if calls.Load() == 0 {
		t.Error("progress was never reported")
	}
}

// A table another session holds locked is reported as a lock, naming the
// holder's mode and pid, once: its first count waits for --lock-timeout, its
// other counts are skipped without a query, and the next table is counted.
// The lock is taken before the counts start, so there is no race with the
// clock.
func TestCheckDataLockedTableIsSkippedOnce(t *testing.T) {
	dsn := newTestDB(t, dataSchema)
	s, err := Open(context.Background(), Config{DSN: dsn, Timeout: 2 * time.Second, LockTimeout: 150 * time.Millisecond, Getenv: func(string) string { return "" }})
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
	var pid int
	if err := locker.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := locker.Exec(ctx, "BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	defer locker.Exec(ctx, "ROLLBACK")
	before := s.RoundTrips()
	res, err := s.CheckData(ctx, snap, []DataCheck{
		checkFor(t, snap, "events", "events_key", "sub", "tx"),
		checkFor(t, snap, "events", "events_charge", "(lower(tx))"),
		checkFor(t, snap, "clean", "clean_key", "ref"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Parts
	want := fmt.Sprintf("events is locked by another session (ACCESS EXCLUSIVE, pid %d): counts skipped after waiting 150ms (--lock-timeout)", pid)
	for _, check := range got[:2] {
		for _, p := range check {
			for _, c := range []Count{p.Rows, p.NullRows, p.CollidingGroups} {
				if c.Skipped != want {
					t.Errorf("%s on the locked table: %+v, want skipped: %s", p.Part, c, want)
				}
			}
		}
	}
	if len(res.Locked) != 1 || res.Locked[0] != want {
		t.Errorf("locked tables %q, want the one reason once", res.Locked)
	}
	// The locked table cost one count, its rollback and one pg_locks read;
	// clean's three counts one round trip each.
	if trips := s.RoundTrips() - before; trips != 3+3 {
		t.Errorf("%d round trips, want 6: a second wait on the locked table, or a count sent for it", trips)
	}
	if got[2][0].NullRows != (Count{N: 0}) || got[2][0].Rows != (Count{N: 2}) {
		t.Errorf("the table after the locked one: %+v, want 0 NULL rows of 2", got[2][0])
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
	got := checkData(t, s, snap, checkFor(t, snap, "events", "events_key", "sub"))
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
	got := checkData(t, s, snap, checkFor(t, snap, "events", "events_key", "sub"))
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
