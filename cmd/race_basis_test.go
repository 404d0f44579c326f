package cmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/groundtruth"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestRaceHTTPForgottenKeyIsAUsageError: without {{key}}, {{uuid}} or
// {{round}} anywhere every round would send the same request, and only
// round 1 would race a fresh key. That is the command line's mistake, not
// the gate's: exit 2 before anything is sent, saying which template to
// add. --same-key races one key on purpose: round 1 races it, the later
// rounds retry it, and the report says so.
func TestRaceHTTPForgottenKeyIsAUsageError(t *testing.T) {
	noLeaks(t)
	g := &groundtruth.Sound{Replay: groundtruth.Marked}
	h := &groundtruth.Counting{Handler: g}
	srv := startTarget(t, h, g)
	for _, args := range [][]string{
		{"-H", "Idempotency-Key: fixed-key"},
		{"-d", `{"amount":100}`},
		{"-H", "Idempotency-Key: fixed-key", "--effect-url", srv.EffectsURL},
	} {
		code, out, errs := runCmd(t, append(append([]string{"race", "http"}, args...), srv.URL)...)
		if code != ExitUsage || !strings.Contains(errs, "the requests of every round would be identical: no {{key}}, {{uuid}} or {{round}} in the URL, the headers or the body") ||
			!strings.Contains(errs, "-H 'Idempotency-Key: {{key}}'") || !strings.Contains(errs, "--same-key") {
			t.Errorf("%v: exit %d, want 2 naming the templates and --same-key:\n%s%s", args, code, out, errs)
		}
	}
	if n := h.Requests(); n != 0 {
		t.Fatalf("the target got %d requests; a usage error sends nothing", n)
	}
	code, out, errs := runCmd(t, "race", "http", "-H", "Idempotency-Key: fixed-key", "--same-key", "--rounds", "4", "--settle", "5ms",
		"--effect-url", strings.Replace(srv.EffectsURL, "{{key}}", "fixed-key", 1), srv.URL)
	if code != ExitOK || !strings.Contains(out, "one key (--same-key)") ||
		!strings.Contains(out, "HOLDS: the gate held: exactly one win in round 1, and none in the 3 retries of its finished key") {
		t.Errorf("--same-key: exit %d, want 0 saying round 1 raced the key and the rest retried it:\n%s%s", code, out, errs)
	}
	// A gate that runs a finished key again is broken by the retries.
	rcw := &groundtruth.InFlightOnly{}
	again := startTarget(t, rcw, rcw)
	code, out, errs = runCmd(t, "race", "http", "-H", "Idempotency-Key: fixed-key", "--same-key", "--rounds", "3", "--settle", "5ms",
		"--effect-url", strings.Replace(again.EffectsURL, "{{key}}", "fixed-key", 1), again.URL)
	if code != ExitFindings || !strings.Contains(out, "retried the key round 1 had finished, and the effect ran again") {
		t.Errorf("--same-key on a gate that runs a finished key again: exit %d, want 1:\n%s%s", code, out, errs)
	}
}

// TestRaceHTTPInFlightIsNotAWin: a sound gate that answers an in-flight
// duplicate 202 {"status":"processing"} holds (by its responses and by its
// count); --win 2xx does not make the 202 a second win, and --win naming
// 202 does.
func TestRaceHTTPInFlightIsNotAWin(t *testing.T) {
	noLeaks(t)
	g := &groundtruth.Sound{Replay: groundtruth.Accepted}
	srv := startTarget(t, g, g)
	for _, oracle := range [][]string{nil, {"--effect-url", srv.EffectsURL}} {
		code, out, errs := runCmd(t, append([]string{"race", "http", "-H", keyFlag, "--rounds", "10", "--settle", "5ms", "--timeout", "1s", "-v", srv.URL}, oracle...)...)
		if code != ExitOK || !strings.Contains(out, "1 in flight") || !strings.Contains(out, "HOLDS: the gate held") || strings.Contains(out, "202 failed") || strings.Contains(out, "202s failed") {
			t.Errorf("oracle %v: exit %d, want 0 with the 202s in flight:\n%s%s", oracle, code, out, errs)
		}
	}
	code, out, errs := runCmd(t, "race", "http", "-H", keyFlag, "--rounds", "3", "--settle", "5ms", "--win", "200-202", srv.URL)
	if code != ExitFindings || !strings.Contains(out, "BROKEN: 2 wins in round") {
		t.Errorf("--win 200-202 names 202: exit %d, want 1:\n%s%s", code, out, errs)
	}
}

// TestRaceHTTPVerdictSaysWhatItRestsOn: the text and the JSON say what the
// verdict rests on, the header line shows a declared marker, and the
// inconclusive line never repeats its word.
func TestRaceHTTPVerdictSaysWhatItRestsOn(t *testing.T) {
	noLeaks(t)
	g := &groundtruth.Sound{Replay: groundtruth.Marked}
	srv := startTarget(t, g, g)
	code, out, _ := runCmd(t, "race", "http", "-H", keyFlag, "--rounds", "5", "--settle", "5ms", "--replay-header", "Idempotent-Replayed: true", srv.URL)
	if code != ExitOK || !strings.Contains(out, "split none, replay marker Idempotent-Replayed: true\n") ||
		!strings.Contains(out, "HOLDS: the gate held by its responses: exactly one win in each of 5 rounds") ||
		!strings.Contains(out, "  Assumed: a refusal did no work; an effect that runs before the claim is invisible to responses: add --effect-sql, --effect-url or --effect-cmd to prove it.") {
		t.Errorf("exit %d, want holds by its responses, the assumption, and the declared marker on the header line:\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want racetest.EvidenceKind
	}{
		{nil, racetest.EvidenceResponses},
		{[]string{"--effect-url", srv.EffectsURL}, racetest.EvidenceCount},
	} {
		_, out, _ := runCmd(t, append([]string{"race", "http", "-H", keyFlag, "--rounds", "5", "--settle", "5ms", "--format", "json", srv.URL}, c.args...)...)
		var res racetest.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		if res.Verdict.Evidence != c.want || (c.want == racetest.EvidenceResponses) != (res.Verdict.Assumption != "") {
			t.Errorf("%v: evidence %q, assumption %q; want %q", c.args, res.Verdict.Evidence, res.Verdict.Assumption, c.want)
		}
	}
	same := &groundtruth.Sound{Replay: groundtruth.SameBytes}
	s2 := startTarget(t, same, same)
	_, out, _ = runCmd(t, "race", "http", "-H", keyFlag, "--rounds", "3", "--settle", "5ms", s2.URL)
	if !strings.Contains(out, "\nINCONCLUSIVE: ") || strings.Contains(strings.ToLower(out), "inconclusive: inconclusive") {
		t.Errorf("the inconclusive line:\n%s", out)
	}
}

// TestRaceHTTPEffectSQLSeesTheKey: --effect-sql binds its parameters in
// the declared order (--effect-param), so that it can count by the
// {{uuid}} a server keys on; counting by {{key}} instead, it sees nothing
// for the calibration's win, which is exit 2 naming the mistake, not
// "widen --window".
func TestRaceHTTPEffectSQLSeesTheKey(t *testing.T) {
	noLeaks(t)
	dsn := pgtest.NewDatabase(t, groundtruth.CreateClaimsNND)
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	g := groundtruth.NewOnConflictClaim(pool, "claims_nnd")
	srv := startTarget(t, g, g)
	count := "SELECT count(*) FROM claims_nnd WHERE idempotency_key = $1"
	base := []string{"race", "http", "-H", "Idempotency-Key: {{uuid}}", "--rounds", "5", "--settle", "5ms", "--dsn", dsn}
	code, out, errs := runCmd(t, append(base, "--effect-sql", count, "--effect-param", "{{uuid}}", srv.URL)...)
	if code != ExitOK || !strings.Contains(out, "the PostgreSQL count was 1 in every round") {
		t.Errorf("--effect-param {{uuid}}: exit %d, want 0 on the count:\n%s%s", code, out, errs)
	}
	code, out, errs = runCmd(t, append(base, "--effect-sql", count, srv.URL)...)
	if code != ExitUsage || !strings.Contains(errs, "the oracle counted 0 effects for the calibration request: it does not see this key") {
		t.Errorf("counting by {{key}}: exit %d, want 2 saying the oracle does not see the key:\n%s%s", code, out, errs)
	}
	code, _, errs = runCmd(t, append(base, "--effect-sql", count+" AND namespace = $2", "--effect-param", "{{uuid}}", srv.URL)...)
	if code != ExitUsage || !strings.Contains(errs, "takes 2 parameter(s) but 1 are declared ({{uuid}}): give one --effect-param per $n, in order") {
		t.Errorf("a parameter too few: exit %d, %s", code, errs)
	}
	code, _, errs = runCmd(t, "race", "http", "-H", keyFlag, "--effect-param", "{{uuid}}", srv.URL)
	if code != ExitUsage || !strings.Contains(errs, "--effect-param binds the parameters of --effect-sql") {
		t.Errorf("--effect-param alone: exit %d, %s", code, errs)
	}
}
