package cmd

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/groundtruth"
	"github.com/jackc/pgx/v5"
)

// TestRaceHTTPLateOrFailedDuplicateIsBrokenWithAnOracle: a duplicate that
// gets through the gate and performs the effect, but answers only after
// the client gave up (3 s against --timeout 2s), resets its connection
// before its effect lands, or never answers, leaves one answered win per
// round. With the target's own count as the oracle every one is BROKEN:
// the count comes after every request settled, plus --settle, and a round
// with a failed request is counted again --timeout later.
func TestRaceHTTPLateOrFailedDuplicateIsBrokenWithAnOracle(t *testing.T) {
	noLeaks(t)
	for _, tc := range []struct {
		name string
		late groundtruth.Late
	}{
		{"answers after 3s", groundtruth.AnswersLate},
		{"resets, then performs the effect", groundtruth.Resets},
		{"never answers", groundtruth.NeverAnswers},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := &groundtruth.LateDuplicate{Late: tc.late}
			srv := startTarget(t, g, g)
			code, out, errs := runCmd(t, "race", "http", "-H", keyFlag, "-d", `{"amount":100}`, "--rounds", "2",
				"--timeout", "2s", "--settle", "20ms", "--sync", "h1", "--effect-url", srv.EffectsURL, "--format", "json", srv.URL)
			var res racetest.Result
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("exit %d, not JSON (%v):\n%s\nstderr: %s", code, err, out, errs)
			}
			doubled, _ := g.Doubled(t.Context())
			t.Logf("exit %d: %s; the target doubled %d keys", code, res.Verdict.Sentence, doubled)
			if doubled == 0 {
				t.Fatal("the target doubled no key: the race did not race")
			}
			if code != ExitFindings || res.Verdict.Status != racetest.Broken {
				t.Fatalf("exit %d, %s: want 1, broken, by the count (%s)", code, res.Verdict.Status, res.Verdict.Sentence)
			}
			if !strings.Contains(res.Verdict.Sentence, "the --effect-url count was 2") {
				t.Errorf("the verdict does not rest on the count: %s", res.Verdict.Sentence)
			}
		})
	}
}

// TestRaceHTTPStalledTargetEndsWithinTheBound: a target that accepts
// connections and reads everything but never answers ends the run with
// exit 2, the phase and the time waited, within --timeout (plus a second)
// of each wait: the calibration's first request, or round 1 without one.
func TestRaceHTTPStalledTargetEndsWithinTheBound(t *testing.T) {
	noLeaks(t)
	srv := startHostile(t, neverAnswers)
	defer srv.Close()
	for _, tc := range []struct {
		args  []string
		phase string
		waits int // how many --timeout waits the run may take
	}{
		{[]string{"--sync", "h1"}, "the warm-up request (OPTIONS *)", 1},
		// A new connection is warmed first (--warm), and the warm-up is
		// what goes unanswered.
		{[]string{"--sync", "h1", "--no-calibrate"}, "the warm-up request (OPTIONS *)", 1},
		{[]string{"--sync", "h2"}, "the HTTP/2 handshake with 127.0.0.1:", 1},
		// --sync auto first looks at the server (OPTIONS *), which waits
		// once more.
		{nil, "the warm-up request (OPTIONS *)", 2},
	} {
		start := time.Now()
		code, out, errs := runCmd(t, append([]string{"race", "http", "-H", keyFlag, "--timeout", "1s", "--settle", "5ms", "--deadline", "30s", srv.URL()}, tc.args...)...)
		took := time.Since(start)
		t.Logf("%v: exit %d after %s: %s", tc.args, code, took.Round(time.Millisecond), strings.TrimSpace(errs))
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want 2:\n%s%s", tc.args, code, out, errs)
		}
		want := regexp.MustCompile(regexp.QuoteMeta(tc.phase) + `[0-9]*: no (request got an )?answer within --timeout 1s: the target stopped answering \(after [0-9.]+m?s\)`)
		if !want.MatchString(errs) {
			t.Errorf("%v: the error does not name the phase and the time waited (want %s):\n%s", tc.args, want, errs)
		}
		if limit := time.Duration(tc.waits)*time.Second + time.Second; took > limit {
			t.Errorf("%v: the run took %s, more than %s", tc.args, took, limit)
		}
	}
}

// TestRaceHTTPStalledOracleEndsWithinTheBound: an --effect-url server that
// never answers, an --effect-cmd that never ends (a shell whose child
// holds its output), and an --effect-sql query that waits on a lock held
// elsewhere: each ends the run with exit 2 within --timeout plus a
// second, naming the oracle, the phase and the time waited.
func TestRaceHTTPStalledOracleEndsWithinTheBound(t *testing.T) {
	noLeaks(t)
	g := &groundtruth.Sound{Replay: groundtruth.Marked}
	target := startTarget(t, g, g)
	silent := startHostile(t, neverAnswers)
	defer silent.Close()
	script := filepath.Join(t.TempDir(), "count.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 30\necho 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dsn := pgtest.NewDatabase(t, "CREATE TABLE effects (key text)")
	holder, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	// The oracle's query waits on this advisory lock (advisory locks are
	// per database), as a count would behind a migration's ACCESS
	// EXCLUSIVE lock.
	if _, err := holder.Exec(t.Context(), "SELECT pg_advisory_lock(4242)"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		phase string
	}{
		{"--effect-url", []string{"--effect-url", strings.Replace(silent.URL(), "/charges", "/effects?key={{key}}", 1)}, "the --effect-url count before the calibration"},
		{"--effect-cmd", []string{"--effect-cmd", script}, "the --effect-cmd count before the calibration"},
		{"--effect-sql", []string{"--effect-sql", "SELECT count(*) + length(pg_advisory_lock_shared(4242)::text) FROM effects WHERE key = $1", "--dsn", dsn}, "the PostgreSQL count before the calibration"},
	} {
		start := time.Now()
		code, out, errs := runCmd(t, append([]string{"race", "http", "-H", keyFlag, "--sync", "h1", "--timeout", "1s", "--settle", "5ms", target.URL}, tc.args...)...)
		took := time.Since(start)
		t.Logf("%s: exit %d after %s: %s", tc.name, code, took.Round(time.Millisecond), strings.TrimSpace(errs))
		if code != ExitUsage {
			t.Errorf("%s: exit %d, want 2:\n%s%s", tc.name, code, out, errs)
		}
		want := regexp.MustCompile(regexp.QuoteMeta(tc.phase) + `: no answer within --timeout 1s: .*\(after 1(\.[0-9]+)?s\)`)
		if !want.MatchString(errs) {
			t.Errorf("%s: the error does not name the oracle, the phase and the time waited (want %s):\n%s", tc.name, want, errs)
		}
		if took > 2*time.Second {
			t.Errorf("%s: the run took %s, more than --timeout plus a second", tc.name, took)
		}
	}
	// The cancel request travels on a connection of its own: give it a
	// moment.
	waiting := -1
	for wait := time.Now().Add(2 * time.Second); waiting != 0 && time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
		if err := holder.QueryRow(t.Context(), "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if waiting != 0 {
		t.Errorf("%d sessions still wait on the advisory lock after the run: the oracle's query was not cancelled", waiting)
	}
}

// TestRaceHTTPDeadlineBoundsTheOracleConnection: --deadline bounds the
// whole run, the oracle's connection included: a --dsn whose server takes
// the TCP connection and never answers its startup ends the run by the
// deadline.
func TestRaceHTTPDeadlineBoundsTheOracleConnection(t *testing.T) {
	noLeaks(t)
	silent := startHostile(t, neverAnswers)
	defer silent.Close()
	host, port, _ := net.SplitHostPort(strings.TrimPrefix(strings.TrimSuffix(silent.URL(), "/charges"), "http://"))
	start := time.Now()
	code, out, errs := runCmd(t, "race", "http", "-H", keyFlag, "--timeout", "10s", "--deadline", "1s",
		"--effect-sql", "SELECT 1", "--dsn", "postgres://u@"+host+":"+port+"/db?sslmode=disable", silent.URL())
	took := time.Since(start)
	t.Logf("exit %d after %s: %s", code, took.Round(time.Millisecond), strings.TrimSpace(errs))
	if code != ExitUsage || took > 2*time.Second {
		t.Errorf("exit %d after %s, want 2 within the 1s deadline plus a second:\n%s%s", code, took, out, errs)
	}
}

// TestRaceHTTPAcceptedWorkIsCountedAgain: a gate whose duplicate answers
// 202 {"status":"processing"} and performs the effect 200 ms later anyway
// is BROKEN with an oracle (its round is counted again --timeout after it
// ended, --settle being too short for it); by its responses it holds, and
// the assumption it holds on says what it cannot see.
func TestRaceHTTPAcceptedWorkIsCountedAgain(t *testing.T) {
	noLeaks(t)
	g := &groundtruth.LateDuplicate{Late: groundtruth.AcceptsThenPerforms}
	srv := startTarget(t, g, g)
	code, out, errs := runCmd(t, "race", "http", "-H", keyFlag, "--rounds", "3", "--settle", "5ms", "--timeout", "1s", "--sync", "h1", "--effect-url", srv.EffectsURL, srv.URL)
	if code != ExitFindings || !strings.Contains(out, "accepted for later performed the effect later") {
		t.Errorf("with an oracle: exit %d, want 1 by the count read again:\n%s%s", code, out, errs)
	}
	g2 := &groundtruth.LateDuplicate{Late: groundtruth.AcceptsThenPerforms}
	srv2 := startTarget(t, g2, g2)
	code, out, errs = runCmd(t, "race", "http", "-H", keyFlag, "--rounds", "3", "--settle", "5ms", "--sync", "h1", srv2.URL)
	if code != ExitOK || !strings.Contains(out, "Assumed: "+racetest.AssumptionInFlight) {
		t.Errorf("by its responses: exit %d, want 0 naming what it assumes of the accepted request:\n%s%s", code, out, errs)
	}
}

// TestRaceHTTPCutShortByTheDeadline: a run whose --deadline passes while
// the target is slow leaves the round it cut out and says it stopped
// early; it is judged on the rounds that finished.
func TestRaceHTTPCutShortByTheDeadline(t *testing.T) {
	noLeaks(t)
	g := &groundtruth.Sound{Replay: groundtruth.Marked}
	srv := startTarget(t, g, g)
	for _, oracle := range [][]string{nil, {"--effect-url", srv.EffectsURL}} {
		code, out, errs := runCmd(t, append([]string{"race", "http", "-H", keyFlag, "--rounds", "10000", "--settle", "50ms", "--deadline", "1s",
			"--format", "json", srv.URL}, oracle...)...)
		var res racetest.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: exit %d, not JSON (%v):\n%s\nstderr: %s", oracle, code, err, out, errs)
		}
		if code != ExitOK || !res.StoppedEarly || !strings.Contains(strings.Join(res.Warnings, "\n"), "the run stopped early") {
			t.Errorf("%v: exit %d, stopped early %v, warnings %q: want 0 on the rounds that ran, saying the run stopped early", oracle, code, res.StoppedEarly, res.Warnings)
		}
		for _, r := range res.Rounds {
			if r.Count(racetest.Error) > 0 {
				t.Errorf("%v: round %d, cut by the deadline, was kept: %s", oracle, r.Index, racetest.RoundLine(&r))
			}
		}
	}
}
