package cmd

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/httprace"
	"go.uber.org/goleak"
)

func runCmd(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	s := &Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Getenv: func(string) string { return "" }}
	code := Run(s, args)
	return code, out.String(), errb.String()
}

func TestRaceDemo(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	code, out, errs := runCmd(t, "race", "demo")
	if code != ExitOK {
		t.Fatalf("exit %d, want 0; stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{
		"BROKEN: 2 wins in round",
		"the claim is a read-then-write or its unique index has a hole",
		"HOLDS: the gate held: exactly one win in each of 30 rounds",
		"under 5% for p >= 0.1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRaceDemoJSONIsOneDocument(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	code, out, errs := runCmd(t, "race", "demo", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, errs)
	}
	var doc struct {
		FormatVersion int    `json:"format_version"`
		Tool          string `json:"tool"`
		Targets       []struct {
			Expected racetest.Status
			Result   racetest.Result
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	if doc.FormatVersion != 1 || doc.Tool != "idemcheck" {
		t.Errorf("format_version %d, tool %q: want 1, idemcheck", doc.FormatVersion, doc.Tool)
	}
	results := doc.Targets
	if len(results) != 2 || results[0].Result.Verdict.Status != racetest.Broken || results[1].Result.Verdict.Status != racetest.Holds {
		t.Errorf("results %+v, want broken then holds", results)
	}
}

func TestRaceHTTPExitStatuses(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	racy := httptest.NewServer(&httprace.Gate{Window: 200 * time.Microsecond})
	defer racy.Close()
	gate, err := httprace.StartDemoServer(&httprace.Gate{})
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	atomic := gate
	key := "Idempotency-Key: {{key}}"
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"broken", []string{"race", "http", "-H", key, "--rounds", "20", racy.URL}, ExitFindings},
		{"holds", []string{"race", "http", "-H", key, "--rounds", "5", "--effect-url", gate.EffectsURL, atomic.URL}, ExitOK},
		// A gate without work refuses as fast as it wins: by its responses
		// it cannot be told from one whose effect runs before its claim.
		{"no work, no oracle", []string{"race", "http", "-H", key, "--rounds", "5", atomic.URL}, ExitInconclusive},
		{"window", []string{"race", "http", "-H", key, "--rounds", "2", "--window", "1ns", atomic.URL}, ExitInconclusive},
		{"no key anywhere", []string{"race", "http", "--rounds", "2", atomic.URL}, ExitUsage},
		{"no key is a 400", []string{"race", "http", "--same-key", "--rounds", "2", atomic.URL}, ExitInconclusive},
		{"conformance fails", []string{"race", "http", "-H", key, "--rounds", "2", "--conformance", atomic.URL}, ExitFindings},
		{"bad profile", []string{"race", "http", "-H", key, "--rounds", "2", "--conformance", "--profile", "acme", atomic.URL}, ExitUsage},
		{"effect-sql without dsn", []string{"race", "http", "--effect-sql", "select 1", atomic.URL}, ExitUsage},
		{"n above 256", []string{"race", "http", "-n", "300", atomic.URL}, ExitUsage},
		{"bad header", []string{"race", "http", "-H", "nocolon", atomic.URL}, ExitUsage},
		{"header with a line break", []string{"race", "http", "-H", "X-A: 1\r\nX-B: 2", atomic.URL}, ExitUsage},
		{"bad url", []string{"race", "http", "ftp://x"}, ExitUsage},
		{"missing file", []string{"race", "http", "-d", "@/nonexistent/body.json", atomic.URL}, ExitUsage},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCmd(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stdout:\n%s\nstderr:\n%s", code, c.code, out, errs)
			}
		})
	}
}

func TestRaceHTTPJSONAndBodyFile(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv, err := httprace.StartDemoServer(&httprace.Gate{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	body := filepath.Join(t.TempDir(), "body.json")
	if err := os.WriteFile(body, []byte(`{"round":{{round}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "race", "http", "-H", "Idempotency-Key: {{uuid}}", "-d", "@"+body, "--rounds", "3", "-n", "4", "--format", "json",
		"--effect-url", strings.Replace(srv.EffectsURL, "{{key}}", "{{uuid}}", 1), srv.URL)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr %s", code, errs)
	}
	var res racetest.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("JSON output: %v\n%s", err, out)
	}
	if res.Verdict.Status != racetest.Holds || len(res.Rounds) != 3 || len(res.Rounds[0].Outcomes) != 4 {
		t.Errorf("result %+v, want 3 holding rounds of 4", res.Verdict)
	}
}

func TestRaceHTTPVerbosePrintsEveryRound(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv, err := httprace.StartDemoServer(&httprace.Gate{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, quiet, _ := runCmd(t, "race", "http", "-H", "Idempotency-Key: {{key}}", "--rounds", "4", "--effect-url", srv.EffectsURL, srv.URL)
	_, loud, _ := runCmd(t, "race", "http", "-H", "Idempotency-Key: {{key}}", "--rounds", "4", "-v", "--effect-url", srv.EffectsURL, srv.URL)
	if n := strings.Count(quiet, "\nround "); n != 0 || !strings.Contains(quiet, "\nwidest round: round ") {
		t.Errorf("without -v: %d round lines, want none, only the widest round:\n%s", n, quiet)
	}
	if n := strings.Count(loud, "\nround "); n != 4 {
		t.Errorf("with -v: %d round lines, want 4:\n%s", n, loud)
	}
}

// TestRaceHTTPEffectSQLOverridesResponses: with --effect-sql the count in
// PostgreSQL decides. The gate answers 201 twice, but the query counts no
// effect at all: the calibration's win counted 0, so the oracle does not
// see the key (exit 2, before any round); without the calibration no round
// has a win: inconclusive, not broken.
func TestRaceHTTPEffectSQLOverridesResponses(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dsn := pgtest.DSN()
	racy := httptest.NewServer(&httprace.Gate{Window: time.Millisecond})
	defer racy.Close()
	key := "Idempotency-Key: {{key}}"
	code, out, errs := runCmd(t, "race", "http", "-H", key, "--rounds", "3",
		"--effect-sql", "SELECT count(*) FROM pg_class WHERE relname = $1", "--dsn", dsn, racy.URL)
	if code == ExitUsage && strings.Contains(errs, "no connection") {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is required in CI: %s", errs)
		}
		t.Skipf("no PostgreSQL at %s: %s", dsn, errs)
	}
	if code != ExitUsage || !strings.Contains(errs, "the oracle counted 0 effects for the calibration request: it does not see this key") {
		t.Fatalf("exit %d, want 2 saying the oracle does not see the key; stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, errs = runCmd(t, "race", "http", "-H", key, "--rounds", "3", "--no-calibrate",
		"--effect-sql", "SELECT count(*) FROM pg_class WHERE relname = $1", "--dsn", dsn, racy.URL)
	if code != ExitInconclusive || !strings.Contains(out, "0 effect(s) counted") {
		t.Fatalf("--no-calibrate: exit %d, want 3 with the counted effect shown; stdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, _, errs = runCmd(t, "race", "http", "-H", key, "--effect-sql", "SELECT count(*) FROM nowhere WHERE k = $1", "--dsn", dsn, racy.URL)
	if code != ExitUsage || !strings.Contains(errs, "nowhere") {
		t.Errorf("a bad --effect-sql: exit %d, stderr %q; want 2 naming the relation", code, errs)
	}
}

// The race flags whose values are words complete them; the new flags of
// issue 26 are among them, and every flag name completes.
func TestRaceCompletesFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"race", "http", "--in-flight", ""}, []string{"202\n", "none\n"}},
		{[]string{"race", "http", "--effect-param", ""}, []string{"{{key}}\n", "{{uuid}}\n", "{{round}}\n"}},
		{[]string{"race", "http", "--sync", ""}, []string{"auto\n", "h1\n", "h2\n"}},
		{[]string{"race", "http", "--format", ""}, []string{"text\n", "json\n"}},
		{[]string{"race", "sql", "--isolation", ""}, []string{"repeatable-read\n", "serializable\n"}},
		{[]string{"race", "http", "--"}, []string{"--in-flight\t", "--same-key\t", "--effect-param\t", "--replay-header\t"}},
	} {
		code, out, errs := runCmd(t, append([]string{"__complete"}, c.args...)...)
		for _, w := range c.want {
			if code != ExitOK || !strings.Contains(out, w) {
				t.Errorf("completing %q: exit %d, want %q in:\n%s%s", c.args, code, w, out, errs)
			}
		}
	}
}
