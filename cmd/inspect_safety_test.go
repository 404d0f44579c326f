package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"

	"github.com/jackc/pgx/v5"
)

// Production safety of inspect, proven end to end on the real server: the
// whole command runs, as a user would run it against production.

// inspectDataJSON is the part of the JSON report these tests read.
type inspectDataJSON struct {
	Findings []struct {
		Rule, Object string
		Data         *struct {
			Parts []struct {
				Part                   string `json:"part"`
				NullRows               *int64 `json:"null_rows"`
				NullRowsSkipped        string `json:"null_rows_skipped"`
				CollidingGroups        *int64 `json:"colliding_groups"`
				CollidingGroupsSkipped string `json:"colliding_groups_skipped"`
			} `json:"parts"`
		} `json:"data"`
	}
}

// runInspectData runs inspect --data --format json and returns the data of
// the finding on public.events.events_idempotency, which every schema here
// has. The run must end with exit status 1 (the finding), not 2.
func runInspectData(t *testing.T, dsn string, extra ...string) (null, colliding string) {
	t.Helper()
	args := append([]string{"inspect", "--dsn", dsn, "--data", "--format", "json"}, extra...)
	code, out, errOut := runInspectCmd(t, nil, args...)
	if code != ExitFindings {
		t.Fatalf("exit %d, want 1 (the finding)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var doc inspectDataJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	for _, f := range doc.Findings {
		if f.Object != "public.events.events_idempotency" || f.Rule != "nullable-key" {
			continue
		}
		if f.Data == nil || len(f.Data.Parts) != 1 {
			t.Fatalf("no data counts on the finding: %s", out)
		}
		p := f.Data.Parts[0]
		null, colliding = p.NullRowsSkipped, p.CollidingGroupsSkipped
		if p.NullRows != nil {
			null = fmt.Sprint(*p.NullRows)
		}
		if p.CollidingGroups != nil {
			colliding = fmt.Sprint(*p.CollidingGroups)
		}
		return null, colliding
	}
	t.Fatalf("the nullable-key finding on public.events.events_idempotency is missing: %s", out)
	return "", ""
}

// newRole creates a login role for t and drops it after t's databases are
// gone (cleanups run last-registered first, so call it before NewDatabase).
func newRole(t *testing.T, prefix string, options string) string {
	t.Helper()
	admin := pgtest.Connect(t)
	role := fmt.Sprintf("%s_%d_%d", prefix, os.Getpid(), time.Now().UnixNano()%1e9)
	if _, err := admin.Exec(context.Background(), "CREATE ROLE "+role+" LOGIN "+options); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+role); err != nil {
			t.Logf("drop role %s: %v", role, err)
		}
	})
	return role
}

func databaseName(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// A role that holds only CONNECT on the database (PUBLIC's CONNECT and
// schema rights revoked, no table privilege) gets the same findings, and its
// data checks are reported as skipped for lack of privilege.
func TestInspectSafetyConnectOnlyRole(t *testing.T) {
	role := newRole(t, "idemcheck_connect_only", "")
	dsn := pgtest.NewDatabase(t, inspectHoleSchema, "REVOKE ALL ON SCHEMA public FROM PUBLIC")
	name := databaseName(t, dsn)
	pgtest.Exec(t, dsn, fmt.Sprintf("REVOKE ALL ON DATABASE %s FROM PUBLIC; GRANT CONNECT ON DATABASE %s TO %s", name, name, role))
	admin := pgtest.Connect(t)
	var readable bool
	if err := admin.QueryRow(context.Background(), fmt.Sprintf(
		"SELECT has_database_privilege('%s', '%s', 'CREATE') OR has_database_privilege('%s', '%s', 'TEMP')", role, name, role, name)).Scan(&readable); err != nil || readable {
		t.Fatalf("%s may do more than connect (%v)", role, err)
	}
	null, colliding := runInspectData(t, pgtest.WithUser(dsn, role))
	for what, got := range map[string]string{"null rows": null, "colliding groups": colliding} {
		if !strings.Contains(got, "privilege") {
			t.Errorf("%s as a CONNECT-only role: %q, want skipped for lack of privilege", what, got)
		}
	}
	// The owner's run counts them, so the skip is the role's doing.
	if null, colliding := runInspectData(t, dsn); null != "4" || colliding != "1" {
		t.Errorf("as the owner: null rows %q, colliding groups %q, want 4 and 1", null, colliding)
	}
}

// With default_transaction_read_only = on, inspect reads and counts as usual.
func TestInspectSafetyReadOnlyDatabase(t *testing.T) {
	dsn := pgtest.NewDatabase(t, inspectHoleSchema)
	pgtest.Exec(t, dsn, "ALTER DATABASE "+databaseName(t, dsn)+" SET default_transaction_read_only = on")
	if null, colliding := runInspectData(t, dsn); null != "4" || colliding != "1" {
		t.Errorf("read-only database: null rows %q, colliding groups %q, want 4 and 1", null, colliding)
	}
}

// pg_stat_database shows no row written and no transaction committed by
// inspect's connection (it rolls its read-only transaction back). A backend
// commits one transaction of its own while starting up, so inspect's run is
// compared with a connection that does nothing at all.
func TestInspectSafetyNoWrites(t *testing.T) {
	dsn := pgtest.NewDatabase(t, inspectHoleSchema)
	name := databaseName(t, dsn)
	start := databaseStats(t, name)
	idle, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	idle.Close(context.Background())
	bare := databaseStats(t, name)
	runInspectData(t, dsn)
	after := databaseStats(t, name)
	if after.tupWritten != bare.tupWritten {
		t.Errorf("rows inserted, updated or deleted went from %d to %d during inspect", bare.tupWritten, after.tupWritten)
	}
	if got, startup := after.commits-bare.commits, bare.commits-start.commits; got != startup {
		t.Errorf("inspect's connection committed %d transactions; a connection that does nothing commits %d", got, startup)
	}
	if after.rollbacks <= bare.rollbacks {
		t.Errorf("rollbacks went from %d to %d: inspect's transaction was not seen, so the counters prove nothing", bare.rollbacks, after.rollbacks)
	}
}

type dbStats struct{ commits, rollbacks, tupWritten int64 }

// databaseStats reads pg_stat_database for name once every backend connected
// to it has ended: a backend flushes its counters when it exits, and the
// test's setup connections and inspect's own are then all counted.
func databaseStats(t *testing.T, name string) dbStats {
	t.Helper()
	admin := pgtest.Connect(t)
	ctx := context.Background()
	for {
		var n int
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = $1", name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond) // polling for a state, not timing anything
		if _, err := admin.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
			t.Fatal(err)
		}
	}
	var s dbStats
	if _, err := admin.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		t.Fatal(err)
	}
	err := admin.QueryRow(ctx, `SELECT xact_commit, xact_rollback, tup_inserted + tup_updated + tup_deleted
FROM pg_stat_database WHERE datname = $1`, name).Scan(&s.commits, &s.rollbacks, &s.tupWritten)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// statementTimeoutRows is how many rows make the colliding-groups count
// outlast statementTimeout with a margin: measured on the 2-core CI machine,
// the count over 2,000,000 rows took 1.0-1.3 s, about three times the
// timeout.
const statementTimeoutRows = 2000000

// statementTimeout is the --timeout of the test. It also bounds the
// connection and the catalog queries, which must finish under it even when
// the machine is loaded: with 100 ms they did not at a load average of 20.
const statementTimeout = "400ms"

// statement_timeout (--timeout) stops a data check on a large table; the
// run goes on and reports the check as skipped, pointing at --timeout.
func TestInspectSafetyStatementTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a table with 2,000,000 rows; runs without -short (as CI does)")
	}
	dsn := pgtest.NewDatabase(t, fmt.Sprintf(`
CREATE UNLOGGED TABLE events (org bigint NOT NULL, sub text, tx bigint NOT NULL);
INSERT INTO events SELECT g %% 1000, NULL, g FROM generate_series(1, %d) g;
CREATE UNIQUE INDEX events_idempotency ON events (org, sub, tx);
ANALYZE events;`, statementTimeoutRows))
	null, colliding := runInspectData(t, dsn, "--timeout", statementTimeout)
	if !strings.Contains(colliding, "--timeout") {
		t.Errorf("colliding groups over %d rows under a %s timeout: %q, want skipped, naming --timeout", statementTimeoutRows, statementTimeout, colliding)
	}
	// The cheaper count may finish or not; when it finishes it is right.
	if null != fmt.Sprint(statementTimeoutRows) && !strings.Contains(null, "--timeout") {
		t.Errorf("null rows: %q, want %d or skipped naming --timeout", null, statementTimeoutRows)
	}
}
