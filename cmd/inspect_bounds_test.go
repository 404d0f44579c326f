package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/pgfake"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

// Every wait is bounded on the client: a server that completes the
// handshake and then never answers ends the run within --timeout and a
// second, exit 2, naming the phase and the time into the run. The fake is
// internal/testkit/pgfake; the bound is the contract, not a speed figure.
func TestInspectStalledServer(t *testing.T) {
	for _, c := range []struct {
		name    string
		answer  int // queries answered before the stall
		args    []string
		limit   time.Duration
		phase   string
		because string
	}{
		{"stall at the first query", 0, []string{"--timeout", "2s"}, 3 * time.Second,
			"starting the read-only transaction", "the server sent nothing for 2.5s (--timeout 2s)"},
		{"stall in the catalog batch", 1, []string{"--timeout", "2s"}, 3 * time.Second,
			"reading the catalog", "the server sent nothing for 2.5s (--timeout 2s)"},
		{"--deadline before --timeout", 0, []string{"--timeout", "20s", "--deadline", "1s"}, 2 * time.Second,
			"starting the read-only transaction", "the run's --deadline of 1s passed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := pgfake.Stalling(t, c.answer)
			start := time.Now()
			code, out, errOut := runInspectCmd(t, nil, append([]string{"inspect", "--dsn", srv.DSN("prod")}, c.args...)...)
			took := time.Since(start)
			t.Logf("ended after %s: %s", took.Round(time.Millisecond), strings.TrimSpace(errOut))
			if code != ExitUsage {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
			}
			if took > c.limit {
				t.Errorf("the run took %s against a stalled server, want under %s", took, c.limit)
			}
			for _, want := range []string{c.phase, c.because, "into the run", "the connection is lost"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr does not say %q:\n%s", want, errOut)
				}
			}
		})
	}
}

// A connection lost in any phase before the counts is an error naming the
// phase and the server's reason (SQLSTATE and message), exit 2: the fake
// ends the connection as pg_terminate_backend does, at the first request
// (the transaction's start) and in the catalog batch.
func TestInspectTerminatedBackendInEveryPhase(t *testing.T) {
	for answer, phase := range []string{"starting the read-only transaction", "reading the catalog"} {
		srv := pgfake.Terminating(t, answer)
		code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", srv.DSN("prod"), "--format", "json")
		t.Logf("%s", strings.TrimSpace(errOut))
		if code != ExitUsage {
			t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
		}
		for _, want := range []string{phase, "terminating connection due to administrator command (SQLSTATE 57P01)", "nothing more was sent"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("stderr does not say %q:\n%s", want, errOut)
			}
		}
	}
}

// boundsSchema has three tables with a finding each, counted in name order.
const boundsSchema = `
CREATE TABLE a_first (org int NOT NULL, sub text);
CREATE UNIQUE INDEX a_first_key ON a_first (org, sub);
CREATE TABLE m_middle (org int NOT NULL, sub text);
CREATE UNIQUE INDEX m_middle_key ON m_middle (org, sub);
CREATE TABLE z_last (org int NOT NULL, sub text);
CREATE UNIQUE INDEX z_last_key ON z_last (org, sub);
INSERT INTO a_first VALUES (1, NULL), (1, NULL);
INSERT INTO m_middle VALUES (1, NULL);
INSERT INTO z_last VALUES (1, NULL);
`

// dataReport is the JSON report's findings with their counts, and errors.
type dataReport struct {
	Findings []struct {
		Object string
		Data   *struct {
			Parts []struct {
				NullRows        *int64 `json:"null_rows"`
				NullRowsSkipped string `json:"null_rows_skipped"`
			} `json:"parts"`
		} `json:"data"`
	}
	Errors []struct {
		Message  string `json:"message"`
		SQLState string `json:"sqlstate"`
	}
	Summary struct {
		RoundTrips int `json:"round_trips"`
	}
}

func (r dataReport) nullRows(t *testing.T, object string) string {
	t.Helper()
	for _, f := range r.Findings {
		if f.Object == object && f.Data != nil && len(f.Data.Parts) == 1 {
			if p := f.Data.Parts[0]; p.NullRows != nil {
				return fmt.Sprint(*p.NullRows)
			} else {
				return p.NullRowsSkipped
			}
		}
	}
	t.Fatalf("no counts on %s", object)
	return ""
}

// A backend terminated mid-count (pg_terminate_backend from a second
// connection while the count waits for a lock) is an error: exit 2 with the
// server's reason (57P01), the findings and the counts made before kept,
// the counts after it not sent, and JSON errors listing it.
func TestInspectDataLostConnection(t *testing.T) {
	dsn := pgtest.NewDatabase(t, boundsSchema)
	locker := pgtest.Connect(t)
	ctx := context.Background()
	lock := connectDSN(t, dsn)
	if _, err := lock.Exec(ctx, "BEGIN; LOCK TABLE m_middle IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	defer lock.Exec(ctx, "ROLLBACK")
	// The killer ends the backend that waits for m_middle's lock.
	killed := make(chan error, 1)
	go func() {
		for range 500 {
			var n int
			err := locker.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE '%m_middle%'`, databaseName(t, dsn)).Scan(&n)
			if err != nil || n > 0 {
				killed <- err
				return
			}
			time.Sleep(10 * time.Millisecond) // polling for the waiting backend, not timing anything
		}
		killed <- fmt.Errorf("no backend ever waited for m_middle")
	}()
	code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--data", "--format", "json", "--timeout", "20s", "--lock-timeout", "10s")
	if err := <-killed; err != nil {
		t.Fatal(err)
	}
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var doc dataReport
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	if len(doc.Findings) != 3 {
		t.Errorf("%d findings, want the 3 read before the connection was lost", len(doc.Findings))
	}
	if got := doc.nullRows(t, "public.a_first.a_first_key"); got != "2" {
		t.Errorf("the count made before the loss: %q, want 2", got)
	}
	if got := doc.nullRows(t, "public.z_last.z_last_key"); !strings.Contains(got, "not counted") || !strings.Contains(got, "57P01") {
		t.Errorf("the count after the loss: %q, want not counted, naming 57P01", got)
	}
	if len(doc.Errors) != 1 || doc.Errors[0].SQLState != "57P01" ||
		!strings.Contains(doc.Errors[0].Message, "counting rows of m_middle") || !strings.Contains(doc.Errors[0].Message, "nothing more was sent") {
		t.Errorf("errors %+v, want one naming the count, 57P01 and the lost connection", doc.Errors)
	}
}

// A proxy that goes quiet during the first count: the run ends within
// --timeout and a second, exit 2, the findings kept, and nothing more is
// sent on the stalled connection.
func TestInspectDataStalledProxy(t *testing.T) {
	dsn := pgtest.NewDatabase(t, boundsSchema)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := pgfake.StallingProxy(t, u.Host, "count(*)")
	u.Host = proxy.Addr()
	start := time.Now()
	code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", u.String(), "--data", "--format", "json", "--timeout", "2s")
	took := time.Since(start)
	t.Logf("ended after %s", took.Round(time.Millisecond))
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if took > 3*time.Second {
		t.Errorf("the run took %s behind a stalled proxy, want under 3s", took)
	}
	var doc dataReport
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	if len(doc.Findings) != 3 || len(doc.Errors) != 1 || !strings.Contains(doc.Errors[0].Message, "the server sent nothing for 2.5s") {
		t.Errorf("%d findings, errors %+v; want 3 and one naming the stall", len(doc.Findings), doc.Errors)
	}
	if proxy.Stalled() != 1 || proxy.SentAfterStall() != 0 {
		t.Errorf("%d connections stalled, %d messages sent after; want 1 and 0", proxy.Stalled(), proxy.SentAfterStall())
	}
}
