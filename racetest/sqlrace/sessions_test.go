package sqlrace

import (
	"context"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/jackc/pgx/v5"
)

// lend opens n sessions the test owns, as a pool would lend them.
func lend(t *testing.T, dsn string, n int) []*pgx.Conn {
	t.Helper()
	var conns []*pgx.Conn
	for range n {
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		conns = append(conns, c)
	}
	return conns
}

// TestSQLRunsOnLentSessions: with Probe.Sessions the probe races on the
// caller's sessions instead of connecting, finds the same verdicts, and
// gives every session back open, idle and free of its advisory lock, even
// after rounds whose claims failed inside their transactions.
func TestSQLRunsOnLentSessions(t *testing.T) {
	dsn := pgtest.NewDatabase(t, sqlClaimTables)
	cases := []struct {
		stmt string
		want racetest.Status
	}{
		{`INSERT INTO sound (key) VALUES ({{key}}) ON CONFLICT DO NOTHING RETURNING id`, racetest.Holds},
		{`INSERT INTO holed (key) VALUES ({{key}}) ON CONFLICT DO NOTHING RETURNING id`, racetest.Broken},
		{`INSERT INTO sound (key) VALUES ({{key}}::int::text) RETURNING id`, racetest.Inconclusive}, // 22P02 in every claim
	}
	conns := lend(t, dsn, 4)
	for _, c := range cases {
		p := Probe{Sessions: conns, Statement: c.stmt, N: 3, Rounds: 3, LockTimeout: testLockTimeout}
		res, err := Run(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", c.stmt, err)
		}
		if res.Verdict.Status != c.want {
			t.Errorf("%s: verdict %s (%s), want %s", c.stmt, res.Verdict.Status, res.Verdict.Sentence, c.want)
		}
		for i, conn := range conns {
			if conn.IsClosed() || conn.PgConn().TxStatus() != 'I' {
				t.Fatalf("%s: session %d came back closed or inside a transaction", c.stmt, i)
			}
			var locks int
			if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`).Scan(&locks); err != nil || locks != 0 {
				t.Fatalf("%s: session %d holds %d advisory locks (%v)", c.stmt, i, locks, err)
			}
		}
	}
	_, err := Run(context.Background(), Probe{Sessions: conns[:2], Statement: cases[0].stmt, N: 2, Rounds: 1})
	if err == nil || !strings.Contains(err.Error(), "needs 3 sessions") {
		t.Errorf("2 sessions for N=2: %v, want an error that says 3 are needed", err)
	}
}
