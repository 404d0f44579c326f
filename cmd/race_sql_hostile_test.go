package cmd

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"
)

// TestRaceSQLServerGoneMidRound shuts the server down under a running
// round, the way a fast shutdown does it to every session (pg_terminate_backend
// sends the same SIGTERM and the same 57P01 error; the shared test server
// itself cannot be stopped). The workers are held inside their claim by a
// trigger waiting for an advisory lock the test holds, so the round is
// certainly in flight. The run must end with
// every outcome an error and an inconclusive verdict (or exit 2), and leave
// no transaction open on the server.
func TestRaceSQLServerGoneMidRound(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dsn := pgtest.NewDatabase(t, raceSQLSchema+`
CREATE FUNCTION hold_claims() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(424242);
  RETURN NEW;
END $$;
CREATE TRIGGER hold_claims BEFORE INSERT ON payments FOR EACH ROW EXECUTE FUNCTION hold_claims();`)
	db := databaseName(t, dsn)
	ctx := context.Background()
	locker, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	if _, err := locker.Exec(ctx, "SELECT pg_advisory_lock(424242)"); err != nil {
		t.Fatal(err)
	}
	var lockerPID int
	if err := locker.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&lockerPID); err != nil {
		t.Fatal(err)
	}
	const n = 3
	type outcome struct {
		code      int
		out, errs string
	}
	done := make(chan outcome, 1)
	go func() {
		code, out, errs := runCmd(t, "race", "sql", "--dsn", dsn, "-n", "3", "--rounds", "3",
			"--lock-timeout", "1m", "--timeout", "1m", "--format", "json",
			`INSERT INTO payments (idempotency_key, amount) VALUES ({{key}}, 100) ON CONFLICT DO NOTHING RETURNING id`)
		done <- outcome{code, out, errs}
	}()

	admin := pgtest.Connect(t)
	// Wait (polling a state, not timing anything) until the n claims are
	// blocked in the trigger: past the barrier, mid-round.
	for blocked := 0; blocked < n; {
		if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO payments%'`, db).Scan(&blocked); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var killed int
	// The sessions are chosen first (MATERIALIZED): in a plain WHERE the
	// planner may call pg_terminate_backend before the filters.
	if err := admin.QueryRow(ctx, `WITH run AS MATERIALIZED (
  SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> $2 AND backend_type = 'client backend')
SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM run`, db, lockerPID).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed < n+1 {
		t.Fatalf("terminated %d sessions, want the %d workers and the coordinator", killed, n)
	}
	res := <-done
	if res.code != ExitInconclusive && res.code != ExitUsage {
		t.Fatalf("exit %d, want 3 (inconclusive) or 2 (error)\nstdout:\n%s\nstderr:\n%s", res.code, res.out, res.errs)
	}
	if res.code == ExitInconclusive {
		var r racetest.Result
		if err := json.Unmarshal([]byte(res.out), &r); err != nil {
			t.Fatalf("JSON: %v\n%s", err, res.out)
		}
		t.Logf("verdict: %s", r.Verdict.Sentence)
		if r.Verdict.Status != racetest.Inconclusive || len(r.Rounds) == 0 || r.Rounds[0].Count(racetest.Error) != n {
			t.Errorf("verdict %q with rounds %+v; want inconclusive with round 1 all errors", r.Verdict.Status, r.Rounds)
		}
	} else {
		t.Logf("stderr: %s", res.errs)
	}

	// No session of the run is left, so no transaction either; and nothing
	// was written.
	for left := -1; left != 0; {
		if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> $2`, db, lockerPID).Scan(&left); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var prepared, advisory int
	if err := admin.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_prepared_xacts WHERE database = $1),
  (SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE d.datname = $1 AND l.locktype = 'advisory' AND l.pid IS DISTINCT FROM $2)`, db, lockerPID).Scan(&prepared, &advisory); err != nil {
		t.Fatal(err)
	}
	if prepared != 0 || advisory != 0 {
		t.Errorf("%d prepared transactions and %d advisory locks left on the server", prepared, advisory)
	}
	if _, err := locker.Exec(ctx, "SELECT pg_advisory_unlock(424242)"); err != nil {
		t.Fatal(err)
	}
	if rows := countRows(t, dsn); rows["payments"] != 0 {
		t.Errorf("payments holds %d rows after the run", rows["payments"])
	}
}
