package cmd

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/internal/testkit/truthcases"
	"github.com/idemcheck/idemcheck/racetest/groundtruth"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/goleak"
)

func startTarget(t *testing.T, h http.Handler, eff groundtruth.Effects) *groundtruth.Server {
	t.Helper()
	srv, err := groundtruth.Start(h, eff)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// noLeaks checks, after every cleanup of the test (servers are closed in
// cleanups), that no goroutine was left behind.
func noLeaks(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

const keyFlag = "Idempotency-Key: {{key}}"

// TestRaceAcceptance is the "what must be true" list, through the
// command.
func TestRaceAcceptance(t *testing.T) {
	noLeaks(t)
	rcw := &groundtruth.ReadCheckWrite{}
	t.Run("read-then-write answering 201 {\"status\":\"charged\"} twice exits 1", func(t *testing.T) {
		srv := startTarget(t, rcw, rcw)
		code, out, errs := runCmd(t, "race", "http", "-H", keyFlag, "-d", `{"amount":100}`, srv.URL)
		// The first round that catches the race is usually round 1, but on a
		// loaded machine it can be a later one.
		verdict := regexp.MustCompile(`BROKEN: 2 wins in round [0-9]+ \(two identical 201s, and this server refused the calibration retry with 409, so it does not replay\)`)
		if code != ExitFindings || !verdict.MatchString(out) {
			t.Fatalf("exit %d, want 1 with the evidence named:\n%s%s", code, out, errs)
		}
		if !strings.Contains(out, "a read-then-write claim, an effect that runs before its claim, or a unique constraint that is missing or has a nullable key part") {
			t.Errorf("the broken sentence does not name the causes:\n%s", out)
		}
	})
	t.Run("PostgreSQL read-then-insert without a unique index exits 1", func(t *testing.T) {
		dsn := pgtest.NewDatabase(t, groundtruth.CreateCharges)
		pool, err := pgxpool.New(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		g := groundtruth.NewReadThenInsert(pool)
		srv := startTarget(t, g, g)
		code, out, errs := runCmd(t, "race", "http", "-H", keyFlag, "-d", `{"amount":100}`, srv.URL)
		if code != ExitFindings {
			t.Fatalf("exit %d, want 1:\n%s%s", code, out, errs)
		}
		srv.Close()
		code, out, errs = runCmd(t, "race", "http", "-H", keyFlag, "-d", `{"amount":100}`, "--rounds", "10",
			"--effect-sql", "SELECT count(*) FROM charges WHERE idempotency_key = $1", "--dsn", dsn, startTarget(t, g, g).URL)
		if code != ExitFindings || !strings.Contains(out, "(the PostgreSQL count was 2)") {
			t.Fatalf("with --effect-sql: exit %d, want 1 naming the PostgreSQL count:\n%s%s", code, out, errs)
		}
	})
	t.Run("a sound gate replaying identical bytes unmarked", func(t *testing.T) {
		g := &groundtruth.Sound{Replay: groundtruth.SameBytes}
		srv := startTarget(t, g, g)
		code, out, errs := runCmd(t, "race", "http", "-H", keyFlag, "-d", `{"amount":100}`, srv.URL)
		if code != ExitInconclusive ||
			!strings.Contains(out, "INCONCLUSIVE: 30 of 30 rounds are unresolved; round 1 had two identical 201s that cannot be told apart") ||
			!strings.Contains(out, "Settle it with an effect oracle that counts the effect per key (--effect-sql, --effect-url or --effect-cmd), or a replay marker") {
			t.Fatalf("default flags: exit %d, want 3 with the settling sentence:\n%s%s", code, out, errs)
		}
		code, out, errs = runCmd(t, "race", "http", "-H", keyFlag, "-d", `{"amount":100}`, "--effect-url", srv.EffectsURL, srv.URL)
		if code != ExitOK || !strings.Contains(out, "HOLDS: the gate held: exactly one win in each of 30 rounds (the --effect-url count was 1 in every round)") {
			t.Fatalf("--effect-url: exit %d, want 0:\n%s%s", code, out, errs)
		}
	})
	t.Run("conformance over h2c; a skipped check says skipped", func(t *testing.T) {
		g := &groundtruth.Sound{Replay: groundtruth.Marked}
		srv := startTarget(t, g, g)
		code, out, errs := runCmd(t, "race", "http", "--sync", "h2", "-H", keyFlag, "-d", `{"amount":100}`, "--rounds", "5",
			"--conformance", "--profile", "stripe", "--effect-url", srv.EffectsURL, srv.URL)
		if strings.Contains(out, "malformed HTTP response") {
			t.Fatalf("conformance did not speak HTTP/2:\n%s", out)
		}
		for _, want := range []string{
			"conformance pass: a retry after the burst returns the winner's response",
			"conformance skipped: a request without a key is refused\n  skipped: profile stripe does not require a key",
			"conformance skipped: a failed attempt releases its key\n  skipped: give --fail-data",
			"conformance pass: concurrent requests with different keys each win",
			// This gate accepts another payload under a used key: a real
			// failure, which exits 1 although the race held.
			"conformance FAIL: the same key with a different payload is refused",
			"conformance: 1 of 5 checks failed (2 passed, 2 skipped)",
			"HOLDS: the gate held",
			"\nFAIL: the race held; 1 of 5 conformance checks failed (2 passed, 2 skipped)\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q", want)
			}
		}
		if strings.Contains(out, "conformance pass: a request without a key") || code != ExitFindings {
			t.Errorf("exit %d, want 1 (a failed check); a skipped check must not print pass:\n%s%s", code, out, errs)
		}
		if !strings.HasSuffix(strings.TrimSpace(out), "1 of 5 conformance checks failed (2 passed, 2 skipped)") {
			t.Errorf("the last line must state the conformance failures:\n%s", out)
		}
	})
	t.Run("check 1 counts the retry's effect", func(t *testing.T) {
		g := &groundtruth.InFlightOnly{}
		srv := startTarget(t, g, g)
		_, out, _ := runCmd(t, "race", "http", "-H", keyFlag, "--rounds", "2", "--conformance", srv.URL)
		if !strings.Contains(out, "conformance pass: a retry after the burst") {
			t.Fatalf("without an oracle the same bytes pass check 1:\n%s", out)
		}
		code, out, _ := runCmd(t, "race", "http", "-H", keyFlag, "--rounds", "2", "--conformance", "--effect-url", srv.EffectsURL, srv.URL)
		if code != ExitFindings || !strings.Contains(out, "conformance FAIL: a retry after the burst returns the winner's response") ||
			!strings.Contains(out, "the retry ran the effect again: the --effect-url count went from 1 to 2") {
			t.Fatalf("exit %d: with an oracle check 1 must fail on the second effect:\n%s", code, out)
		}
	})
}

// contentTypeRecorder answers 201 once per key and keeps the Content-Type
// of every request but the warm-ups (OPTIONS, which carry no body).
type contentTypeRecorder struct {
	groundtruth.Sound
	mu    sync.Mutex
	types map[string]bool
}

func (c *contentTypeRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	if r.Method != http.MethodOptions {
		c.types[r.Header.Get("Content-Type")] = true
	}
	c.mu.Unlock()
	c.Sound.ServeHTTP(w, r)
}

func TestRaceHTTPBodyContentType(t *testing.T) {
	noLeaks(t)
	for _, c := range []struct {
		data, header, want, note string
	}{
		{`{"amount":{{round}}}`, "", "application/json", "note: Content-Type: application/json (the body parses as JSON"},
		{"amount=100", "", "application/x-www-form-urlencoded", "note: Content-Type: application/x-www-form-urlencoded (the body is not JSON"},
		{`{"amount":100}`, "Content-Type: text/plain", "text/plain", ""},
	} {
		rec := &contentTypeRecorder{Sound: groundtruth.Sound{Replay: groundtruth.Marked}, types: map[string]bool{}}
		srv := startTarget(t, rec, rec)
		args := []string{"race", "http", "-H", keyFlag, "-d", c.data, "--rounds", "2", "-v", srv.URL}
		if c.header != "" {
			args = append(args, "-H", c.header)
		}
		code, out, errs := runCmd(t, args...)
		if code != ExitOK {
			t.Fatalf("-d %s: exit %d\n%s%s", c.data, code, out, errs)
		}
		if len(rec.types) != 1 || !rec.types[c.want] {
			t.Errorf("-d %s %s: the server saw Content-Type %v, want %s", c.data, c.header, rec.types, c.want)
		}
		if c.note != "" && !strings.Contains(out, c.note) {
			t.Errorf("-d %s: -v does not say which Content-Type was sent:\n%s", c.data, out)
		}
		if c.note == "" && strings.Contains(out, "note: Content-Type") {
			t.Errorf("an explicit Content-Type got a note:\n%s", out)
		}
	}
}

// TestRaceHTTPSecrets: calibration and conformance show the requests they
// sent; secret headers never appear, in text, -v or JSON.
func TestRaceHTTPSecrets(t *testing.T) {
	noLeaks(t)
	g := &groundtruth.Sound{Replay: groundtruth.Rerendered} // the calibration shows both responses
	srv := startTarget(t, g, g)
	secrets := []string{"Bearer sk_live_TOPSECRET", "session=COOKIESECRET", "APIKEYSECRET"}
	base := []string{"race", "http", "-H", keyFlag, "-H", "Authorization: " + secrets[0], "-H", "Cookie: " + secrets[1],
		"-H", "X-Api-Key: " + secrets[2], "--secret-header", "x-api-key", "--rounds", "2", "--conformance", "--fail-data", "x"}
	for _, extra := range [][]string{{}, {"-v"}, {"--format", "json"}} {
		_, out, errs := runCmd(t, append(append(base, extra...), srv.URL)...)
		for _, s := range secrets {
			if strings.Contains(out+errs, strings.TrimPrefix(strings.TrimPrefix(s, "Bearer "), "session=")) {
				t.Errorf("%v: the output shows a secret (%s):\n%s%s", extra, s, out, errs)
			}
		}
		if !strings.Contains(out, "Authorization: <redacted>") || !strings.Contains(out, "X-Api-Key: <redacted>") {
			t.Errorf("%v: the shown requests do not say what was redacted:\n%s", extra, out)
		}
	}
}

// TestRaceHTTPCalibrationShownAndSkipped: a different success at the
// calibration shows both responses; --no-calibrate says it was skipped and
// leaves identical successes unresolved.
func TestRaceHTTPCalibrationShownAndSkipped(t *testing.T) {
	noLeaks(t)
	g := &groundtruth.Sound{Replay: groundtruth.Rerendered}
	srv := startTarget(t, g, g)
	code, out, _ := runCmd(t, "race", "http", "-H", keyFlag, "--rounds", "2", srv.URL)
	if code != ExitInconclusive || !strings.Contains(out, "calibration: different-success: the retry of a finished key got a different success") ||
		!strings.Contains(out, "  got:  201 {\"id\":1,\"rendered_at\"") || !strings.Contains(out, "  then: 201 {\"id\":1,\"rendered_at\"") {
		t.Fatalf("exit %d, want 3 with both calibration responses shown:\n%s", code, out)
	}
	w := &groundtruth.ReadCheckWrite{}
	code, out, _ = runCmd(t, "race", "http", "-H", keyFlag, "--rounds", "3", "--no-calibrate", startTarget(t, w, w).URL)
	if code != ExitInconclusive || !strings.Contains(out, "calibration: skipped: skipped (--no-calibrate)") ||
		!strings.Contains(out, "and the calibration was skipped (--no-calibrate)") {
		t.Fatalf("--no-calibrate: exit %d, want 3 naming the skipped calibration:\n%s", code, out)
	}
}

// TestRaceHTTPEffectCmd: the command gets the key as its last argument and
// in IDEMCHECK_KEY, never through a shell: a key full of shell syntax
// arrives as it is.
func TestRaceHTTPEffectCmd(t *testing.T) {
	noLeaks(t)
	g := &groundtruth.Sound{Replay: groundtruth.SameBytes}
	srv := startTarget(t, g, g)
	if _, err := exec.LookPath("curl"); err != nil {
		truthcases.Missing(t, "curl is not installed; the --effect-cmd test's script reads the target's count with it")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	script := filepath.Join(dir, "count")
	// The script prints the target's count for its last argument after
	// checking that IDEMCHECK_KEY says the same.
	body := "#!/bin/sh\nfor last; do :; done\n[ \"$last\" = \"$IDEMCHECK_KEY\" ] || { echo mismatch >&2; exit 1; }\n" +
		"printf '%s\\n' \"$1|$last\" >> " + log + "\n" +
		"exec curl -s --get --data-urlencode \"key=$last\" " + strings.TrimSuffix(srv.EffectsURL, "?key={{key}}") + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "race", "http", "-H", keyFlag, "--rounds", "3", "--effect-cmd", script+" 'first arg; $(rm -rf /)'", srv.URL)
	if code != ExitOK || !strings.Contains(out, "(the --effect-cmd count was 1 in every round)") {
		t.Fatalf("exit %d, want 0 on the command's count:\n%s%s", code, out, errs)
	}
	calls, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(calls), "first arg; $(rm -rf /)|idemcheck-") {
		t.Errorf("the command's arguments were not passed as given:\n%s", calls)
	}
	code, _, errs = runCmd(t, "race", "http", "-H", keyFlag, "--effect-cmd", "'unterminated", srv.URL)
	if code != ExitUsage || !strings.Contains(errs, "an unterminated quote") {
		t.Errorf("a bad --effect-cmd: exit %d, %s", code, errs)
	}
	// A pipe is shell syntax: passed on as an argument, it would make the
	// count come from a different command than the user wrote.
	code, _, errs = runCmd(t, "race", "http", "-H", keyFlag, "--effect-cmd", script+" x | wc -l", srv.URL)
	if code != ExitUsage || !strings.Contains(errs, `"|" at byte`) || !strings.Contains(errs, "sh -c") {
		t.Errorf("--effect-cmd with a pipe: exit %d, %s", code, errs)
	}
	code, _, errs = runCmd(t, "race", "http", "--effect-url", srv.EffectsURL, "--effect-cmd", script, srv.URL)
	if code != ExitUsage || !strings.Contains(errs, "give one effect oracle") {
		t.Errorf("two oracles: exit %d, %s", code, errs)
	}
}
