package cmd

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/pgfake"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

// A server that completes the handshake and then never answers ends race
// sql within --timeout and a second, exit 2, naming what it was doing and
// the time into the run (internal/testkit/pgfake; before, the run waited for
// --deadline, and with a stall before the probe's own sessions, for ever).
func TestRaceSQLStalledServer(t *testing.T) {
	srv := pgfake.Stalling(t, 0)
	start := time.Now()
	code, out, errOut := runInspectCmd(t, nil, "race", "sql", "--dsn", srv.DSN("prod"), "--timeout", "2s", "--deadline", "8s",
		"INSERT INTO payments (idempotency_key, amount) VALUES ({{key}}, 1) RETURNING id")
	took := time.Since(start)
	t.Logf("ended after %s: %s", took.Round(time.Millisecond), strings.TrimSpace(errOut))
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
	}
	if took > 3*time.Second {
		t.Errorf("race sql took %s against a stalled server, want under 3s", took)
	}
	for _, want := range []string{"preparing the claim statement", "into the run", "the server sent nothing for 2s (--timeout)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
}

// A statement that can return no row is not a claim: refused before any
// round, instead of judged (it used to say BROKEN).
func TestRaceSQLRefusesStatementsThatReturnNoRow(t *testing.T) {
	dsn := pgtest.NewDatabase(t, raceSQLSchema)
	for _, stmt := range []string{
		"TRUNCATE payments",
		"DROP TABLE payments",
		"INSERT INTO payments (idempotency_key, amount) VALUES ({{key}}, 1) ON CONFLICT DO NOTHING",
		"UPDATE payments SET amount = 2 WHERE idempotency_key = {{key}}",
	} {
		code, out, errOut := runInspectCmd(t, nil, "race", "sql", "--dsn", dsn, "--rounds", "2", stmt)
		if code != ExitUsage || !strings.Contains(errOut, "not a claim: the statement returns no row") {
			t.Errorf("%s: exit %d, want 2 and \"not a claim\"\n%s%s", stmt, code, out, errOut)
		}
	}
	if n := countRows(t, dsn)["payments"]; n != 0 {
		t.Errorf("payments has %d rows", n)
	}
	// The table is still there: nothing was run.
	code, _, errOut := runInspectCmd(t, nil, "race", "sql", "--dsn", dsn, "--rounds", "1", "--lock-timeout", "100ms",
		"INSERT INTO payments (idempotency_key, amount) VALUES ({{key}}, 1) ON CONFLICT DO NOTHING RETURNING id")
	if code != ExitOK {
		t.Errorf("the claim with RETURNING: exit %d\n%s", code, errOut)
	}
}

// A run the deadline cuts short says so in the header, the warning and
// the JSON, and the round it interrupted is not judged as errors.
func TestRaceSQLDeadlineSaysItStoppedEarly(t *testing.T) {
	dsn := pgtest.NewDatabase(t, raceSQLSchema)
	// Each round waits for the claim behind the winner's uncommitted row:
	// about --lock-timeout, so 5,000 rounds cannot fit in 1.5 s.
	claim := "INSERT INTO payments (idempotency_key, amount) VALUES ({{key}}, 1) ON CONFLICT DO NOTHING RETURNING id"
	code, out, errOut := runInspectCmd(t, nil, "race", "sql", "--dsn", dsn, "--rounds", "5000", "--deadline", "1500ms", "--lock-timeout", "200ms", claim)
	if code != ExitOK {
		t.Fatalf("exit %d, want 0 (the rounds that ran held)\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"of 5000 rounds (stopped early by the deadline)", "the run stopped early"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "timeout") && strings.Contains(out, "error") {
		t.Errorf("the round the deadline cut short was judged:\n%s", out)
	}
	code, out, _ = runInspectCmd(t, nil, "race", "sql", "--dsn", dsn, "--rounds", "5000", "--deadline", "1s", "--lock-timeout", "200ms", "--format", "json", claim)
	var doc struct {
		StoppedEarly bool `json:"stopped_early"`
		Planned      int  `json:"planned_rounds"`
		Rounds       []struct{}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("exit %d, JSON: %v\n%s", code, err, out)
	}
	if !doc.StoppedEarly || doc.Planned != 5000 || len(doc.Rounds) == 0 || len(doc.Rounds) >= 5000 {
		t.Errorf("stopped_early %v, planned %d, %d rounds", doc.StoppedEarly, doc.Planned, len(doc.Rounds))
	}
}

// The connection-limit error says how many sessions the race needs: N
// workers, the coordinator and the catalog reader.
func TestRaceSQLConnectionLimitSaysHowManySessions(t *testing.T) {
	role := newRole(t, "idemcheck_limited", "CONNECTION LIMIT 3")
	dsn := pgtest.NewDatabase(t, raceSQLSchema, "GRANT SELECT, INSERT ON payments TO "+role)
	code, out, errOut := runInspectCmd(t, nil, "race", "sql", "--dsn", pgtest.WithUser(dsn, role), "-n", "4", "--rounds", "1",
		"INSERT INTO payments (idempotency_key, amount) VALUES ({{key}}, 1) RETURNING id")
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"53300", "refused session 4 of 6", "needs 6 sessions at once (4 workers, a coordinator and the catalog reader)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
}
