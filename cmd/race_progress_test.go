//go:build linux

package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/httprace"
	"golang.org/x/sys/unix"
)

// The tests of this file run idemcheck in a child process, as a user's
// shell does, with stdout on a pipe and stderr on a pseudo-terminal (or a
// pipe), so that what decides the progress line is the real terminal test
// and the real terminal width. The target holds round 3 until the test has
// seen, while the run is still going, the header on stdout and the
// progress of rounds 1 and 2 on the terminal.

// openPTY opens a pseudo-terminal cols columns wide: the master, which
// reads what the terminal shows, and the slave, the terminal a child
// writes to.
func openPTY(t *testing.T, cols uint16) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: cols}); err != nil {
		t.Fatalf("sizing the pseudo-terminal: %v", err)
	}
	return master, slave
}

// watched collects what a stream showed, and tells waitFor when it grew.
type watched struct {
	mu   sync.Mutex
	b    bytes.Buffer
	grew chan struct{}
}

func newWatched() *watched { return &watched{grew: make(chan struct{}, 1)} }

func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.b.Write(p)
	w.mu.Unlock()
	select {
	case w.grew <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *watched) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// liveRace is a running child idemcheck.
type liveRace struct {
	out, errs *watched
	exited    chan struct{}
	code      int
}

// startRace runs idemcheck args with stdout on a pipe and stderr on a
// terminal of cols columns, or on a pipe when cols is 0.
func startRace(t *testing.T, cols uint16, args ...string) *liveRace {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	r := &liveRace{out: newWatched(), errs: newWatched(), exited: make(chan struct{})}
	c := exec.Command(exe, "-test.run=^TestLintChild$")
	c.Env = append(os.Environ(), childArgsEnv+"="+string(raw), "NO_COLOR=1")
	c.Stdout = r.out
	var master, slave *os.File
	if cols > 0 {
		master, slave = openPTY(t, cols)
		c.Stderr = slave
	} else {
		c.Stderr = r.errs
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var copied sync.WaitGroup
	if master != nil {
		slave.Close()
		copied.Add(1)
		go func() {
			defer copied.Done()
			// The read ends with EIO once the child, the last holder
			// of the terminal, has exited.
			_, _ = io.Copy(r.errs, master)
		}()
	}
	go func() {
		err := c.Wait()
		copied.Wait()
		if master != nil {
			master.Close()
		}
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			r.code = ee.ExitCode()
		case err != nil:
			r.code = -1
		}
		close(r.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-r.exited:
		default:
			_ = c.Process.Kill()
			<-r.exited
		}
	})
	return r
}

// waitFor waits until w shows want, and fails if the child exits first.
// The bound is a guard against a hung test, not a measurement.
func (r *liveRace) waitFor(t *testing.T, w *watched, what, want string) {
	t.Helper()
	guard := time.After(2 * time.Minute)
	for {
		if strings.Contains(w.String(), want) {
			return
		}
		select {
		case <-w.grew:
		case <-r.exited:
			if strings.Contains(w.String(), want) {
				return
			}
			t.Fatalf("idemcheck exited (status %d) before %s showed %q:\nstdout:\n%s\nstderr:\n%q", r.code, what, want, r.out.String(), r.errs.String())
		case <-guard:
			t.Fatalf("%s never showed %q:\nstdout:\n%s\nstderr:\n%q", what, want, r.out.String(), r.errs.String())
		}
	}
}

// wait waits for the child to exit and returns its status.
func (r *liveRace) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-r.exited:
	case <-time.After(2 * time.Minute):
		t.Fatalf("idemcheck did not exit:\nstdout:\n%s\nstderr:\n%q", r.out.String(), r.errs.String())
	}
	return r.code
}

// heldGate is a sound gate (one win, the other refused, and a count for
// --effect-url) whose requests carrying "X-Round: 3" wait until release is
// closed. The races held by it name --sync h1, for a header that names the
// mode and no pre-run (whose rounds take {{round}} values after the run's,
// so that the hold never catches one of them).
func heldGate(t *testing.T) (claims, effects string, release func()) {
	t.Helper()
	gate := &httprace.Gate{}
	held := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /effects", gate.ServeEffects)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Round") == "3" {
			<-held
		}
		gate.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(mux)
	var once sync.Once
	release = func() { once.Do(func() { close(held) }) }
	t.Cleanup(func() { release(); srv.Close() })
	return srv.URL + "/claims", srv.URL + "/effects?key={{key}}", release
}

// drawn is what each redraw of the progress line put on the terminal.
func drawn(term string) []string {
	var lines []string
	for _, l := range strings.Split(term, "\r\x1b[K") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// checkCleared fails unless the terminal showed progress lines no wider
// than cols-1 and the last thing written erased the line.
func checkCleared(t *testing.T, term string, cols int) {
	t.Helper()
	if !strings.HasSuffix(term, "\r\x1b[K") {
		t.Errorf("the progress line was not cleared at the end: the terminal ends %q", term[max(0, len(term)-80):])
	}
	for _, l := range drawn(term) {
		if len(l) > cols-1 || strings.Contains(l, "\n") {
			t.Errorf("progress line %q is wider than the terminal's %d columns less one, or not one line", l, cols)
		}
	}
}

func TestRaceHTTPShowsHeaderAndProgressOnATerminal(t *testing.T) {
	claims, effects, release := heldGate(t)
	const cols = 120
	r := startRace(t, cols, "race", "http", "-H", "Idempotency-Key: {{key}}", "-H", "X-Round: {{round}}",
		"--rounds", "5", "--timeout", "10m", "--sync", "h1", "--effect-url", effects, claims)
	header := "race POST " + claims + ": n=2, 5 rounds, sync h1, split none, oracle --effect-url count\n"
	// Round 3 is held: the run is still going while these show.
	r.waitFor(t, r.out, "stdout", header)
	r.waitFor(t, r.errs, "the terminal", "\r\x1b[K2 of 5 rounds: 2 wins, 2 refusals, 0 in flight; no round won twice")
	if out := r.out.String(); strings.Contains(out, "HOLDS") || strings.Contains(out, "calibration:") {
		t.Errorf("stdout shows the report's end while a round is held:\n%s", out)
	}
	release()
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("exit %d, want 0:\nstdout:\n%s\nstderr:\n%q", code, r.out.String(), r.errs.String())
	}
	out, term := r.out.String(), r.errs.String()
	if !strings.HasPrefix(out, header) || strings.Count(out, "\nrace POST ") != 0 || !strings.Contains(out, "\nHOLDS: the gate held: exactly one win in each of 5 rounds") {
		t.Errorf("stdout is not the header once, then the report:\n%s", out)
	}
	if strings.Contains(out, "\r") {
		t.Errorf("stdout holds a carriage return:\n%q", out)
	}
	if !strings.Contains(term, "\r\x1b[K0 of 5 rounds: 0 wins, 0 refusals, 0 in flight") {
		t.Errorf("the terminal did not show the run's start: %q", term)
	}
	checkCleared(t, term, cols)
}

// A machine format is one document on stdout: no header before it; the
// terminal still shows the progress.
func TestRaceHTTPJSONOnATerminalIsOneDocument(t *testing.T) {
	claims, effects, release := heldGate(t)
	const cols = 120
	r := startRace(t, cols, "race", "http", "-H", "Idempotency-Key: {{key}}", "-H", "X-Round: {{round}}",
		"--rounds", "5", "--timeout", "10m", "--sync", "h1", "--effect-url", effects, "--format", "json", claims)
	r.waitFor(t, r.errs, "the terminal", "\r\x1b[K2 of 5 rounds: 2 wins, 2 refusals")
	if out := r.out.String(); out != "" {
		t.Errorf("stdout shows %q before the run ended: want the JSON document alone, at the end", out)
	}
	release()
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("exit %d:\nstdout:\n%s\nstderr:\n%q", code, r.out.String(), r.errs.String())
	}
	var res racetest.Result
	if err := json.Unmarshal([]byte(r.out.String()), &res); err != nil || len(res.Rounds) != 5 {
		t.Errorf("stdout is not one JSON document of 5 rounds (%v):\n%s", err, r.out.String())
	}
	checkCleared(t, r.errs.String(), cols)
}

// Piped, or with --quiet on a terminal, stderr gets no progress line: the
// report is the same.
func TestRaceHTTPNoProgressPipedOrQuiet(t *testing.T) {
	claims, effects, release := heldGate(t)
	release()
	args := []string{"race", "http", "-H", "Idempotency-Key: {{key}}", "-H", "X-Round: {{round}}", "--rounds", "3", "--effect-url", effects, claims}
	for _, c := range []struct {
		name string
		cols uint16
		args []string
	}{
		{"piped", 0, args},
		{"quiet on a terminal", 120, append(args, "--quiet")},
		{"-q on a terminal", 120, append(args, "-q")},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := startRace(t, c.cols, c.args...)
			if code := r.wait(t); code != ExitOK {
				t.Fatalf("exit %d:\nstdout:\n%s\nstderr:\n%q", code, r.out.String(), r.errs.String())
			}
			if errs := r.errs.String(); errs != "" {
				t.Errorf("stderr shows %q: want nothing", errs)
			}
			if out := r.out.String(); !strings.HasPrefix(out, "race POST "+claims+": n=2, 3 rounds") || !strings.Contains(out, "HOLDS:") || strings.Contains(out, "\r") {
				t.Errorf("stdout is not the plain report:\n%q", out)
			}
		})
	}
}

// race sql the same, against PostgreSQL: round 3's claims wait until the
// test adds a row to released (a wait no lock timeout cuts short). The
// terminal is narrow, so the line is cut to its width.
func TestRaceSQLShowsHeaderAndProgressOnATerminal(t *testing.T) {
	dsn := pgtest.NewDatabase(t, raceSQLSchema, `
CREATE TABLE released (at timestamptz);
CREATE FUNCTION hold_round(r text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  WHILE r = '3' AND NOT EXISTS (SELECT 1 FROM released) LOOP
    PERFORM pg_sleep(0.01);
  END LOOP;
  RETURN r;
END $$;`)
	var once sync.Once
	release := func() { once.Do(func() { pgtest.Exec(t, dsn, "INSERT INTO released VALUES (now())") }) }
	// A failed test lets the held claims go before its database is dropped.
	t.Cleanup(release)
	stmt := `INSERT INTO payments (idempotency_key, amount)
SELECT {{key}}, 100 WHERE hold_round(CAST({{round}} AS text)) IS NOT NULL
ON CONFLICT DO NOTHING RETURNING id`
	const cols = 40
	r := startRace(t, cols, "race", "sql", "--dsn", dsn, "--rounds", "5", "--timeout", "10m", stmt)
	header := "race SQL INSERT INTO payments (idempotency_key, amount) SELECT {{key}}, 100"
	r.waitFor(t, r.out, "stdout", header)
	want := "2 of 5 rounds: 2 wins, 2 refusals, 0 in flight; no round won twice"
	r.waitFor(t, r.errs, "the terminal", "\r\x1b[K"+want[:cols-1])
	if out := r.out.String(); strings.Contains(out, "HOLDS") {
		t.Errorf("stdout shows the verdict while a round is held:\n%s", out)
	}
	release()
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("exit %d:\nstdout:\n%s\nstderr:\n%q", code, r.out.String(), r.errs.String())
	}
	out := r.out.String()
	if !strings.HasPrefix(out, header) || !strings.Contains(out, ": n=2, 5 rounds, sync advisory-lock\n") || !strings.Contains(out, "\nHOLDS: the gate held: exactly one win in each of 5 rounds") || strings.Contains(out, "\r") {
		t.Errorf("stdout is not the header, then the report:\n%q", out)
	}
	checkCleared(t, r.errs.String(), cols)

	for _, c := range []struct {
		name string
		cols uint16
		args []string
	}{
		{"piped", 0, nil},
		{"quiet on a terminal", cols, []string{"--quiet"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"race", "sql", "--dsn", dsn, "--rounds", "3"}, c.args...)
			r := startRace(t, c.cols, append(args, stmt)...)
			if code := r.wait(t); code != ExitOK {
				t.Fatalf("exit %d:\nstdout:\n%s\nstderr:\n%q", code, r.out.String(), r.errs.String())
			}
			if errs := r.errs.String(); errs != "" {
				t.Errorf("stderr shows %q: want nothing", errs)
			}
			if out := r.out.String(); !strings.HasPrefix(out, header) || !strings.Contains(out, "HOLDS:") {
				t.Errorf("stdout is not the plain report:\n%s", out)
			}
		})
	}
}

// claimLog is a sound gate (one win a key, the rest refused, and a count
// for --effect-url) that writes down every claim it is sent: the key the
// gate claims by (Idempotency-Key) and the run's own key for the round
// (X-Run-Key: {{key}}, idemcheck-RUN-pre-... in --sync auto's pre-run).
// hold, when set, is called before each claim is served, with the distinct
// pre-run keys seen so far in order of arrival (the claim's own included).
type claimLog struct {
	gate *httprace.Gate
	hold func(r *http.Request, preKeys []string)

	mu      sync.Mutex
	claims  [][2]string // {Idempotency-Key, X-Run-Key}
	preKeys []string
}

func newClaimLog(t *testing.T, hold func(r *http.Request, preKeys []string)) (l *claimLog, claims, effects string) {
	t.Helper()
	l = &claimLog{gate: &httprace.Gate{}, hold: hold}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /effects", l.gate.ServeEffects)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		run := r.Header.Get("X-Run-Key")
		l.mu.Lock()
		l.claims = append(l.claims, [2]string{r.Header.Get(httprace.KeyHeader), run})
		if strings.Contains(run, "-pre-") && !slices.Contains(l.preKeys, run) {
			l.preKeys = append(l.preKeys, run)
		}
		pre := slices.Clone(l.preKeys)
		l.mu.Unlock()
		if l.hold != nil {
			l.hold(r, pre)
		}
		l.gate.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return l, srv.URL + "/claims", srv.URL + "/effects?key="
}

// gateChannel is a channel and what closes it, once however often called.
func gateChannel() (<-chan struct{}, func()) {
	c := make(chan struct{})
	var once sync.Once
	return c, func() { once.Do(func() { close(c) }) }
}

// With an oracle, --sync auto races a pre-run before the calibration. The
// header goes to stdout before the pre-run's first request reaches the
// target (which holds every claim until the test has read it), naming the
// sync still to be chosen; the terminal shows the pre-run while it runs;
// the sync line naming the choice follows once it is over, and the
// progress line then counts the rounds proper.
func TestRaceHTTPHeaderBeforeTheAutoPreRun(t *testing.T) {
	headerRead, readHeader := gateChannel()
	progressSeen, seeProgress := gateChannel()
	_, claims, effects := newClaimLog(t, func(r *http.Request, pre []string) {
		<-headerRead
		// The second round of the pre-run waits until the terminal showed
		// the first one done.
		if len(pre) == 2 && r.Header.Get("X-Run-Key") == pre[1] {
			<-progressSeen
		}
	})
	// A failed test lets the held claims go before the target closes.
	t.Cleanup(func() { readHeader(); seeProgress() })
	const cols = 120
	r := startRace(t, cols, "race", "http", "-H", "Idempotency-Key: {{key}}", "-H", "X-Run-Key: {{key}}",
		"--rounds", "5", "--timeout", "10m", "--one-cpu=false", "--settle", "20ms", "--effect-url", effects+"{{key}}", claims)
	header := "race POST " + claims + ": n=2, 5 rounds, sync auto, split auto, oracle --effect-url count\n"
	r.waitFor(t, r.out, "stdout", header)
	readHeader()
	r.waitFor(t, r.errs, "the terminal", "\r\x1b[Ksync pre-run, candidate 1 of 4: 1 of 24 rounds, 0 doubled effects; h1 with the wake release, split none")
	if out := r.out.String(); out != header {
		t.Errorf("while the pre-run runs, stdout shows %q: want the header line alone (the sync line once the pre-run chose)", out)
	}
	seeProgress()
	if code := r.wait(t); code != ExitOK {
		t.Fatalf("exit %d, want 0:\nstdout:\n%s\nstderr:\n%q", code, r.out.String(), r.errs.String())
	}
	out, term := r.out.String(), r.errs.String()
	if !strings.HasPrefix(out, header+"sync: auto chose h1 with the wake release, split none: ") || strings.Count(out, "race POST ") != 1 ||
		!strings.Contains(out, "a pre-run of 6 rounds per candidate caught the race (by the oracle's count) in 0 with h1 with the wake release, split none, "+
			"0 with h1 with the wake release, split headers, 0 with h1 with the spin release, split headers, 0 with h1 with the parked release, split headers\n") ||
		!strings.Contains(out, "\nHOLDS: the gate held: exactly one win in each of 5 rounds") {
		t.Errorf("stdout is not the header, the sync line of the pre-run, then the report:\n%s", out)
	}
	pre := strings.LastIndex(term, "\r\x1b[Ksync pre-run, ")
	rounds := strings.Index(term, "\r\x1b[K0 of 5 rounds: 0 wins, 0 refusals, 0 in flight")
	if pre < 0 || rounds < pre {
		t.Errorf("the terminal did not show the pre-run, then the rounds: %q", term)
	}
	checkCleared(t, term, cols)
}

// The pre-run's rounds take {{round}} values of their own, so that a
// target whose key is built from {{round}} alone sees every key once: each
// round's key is claimed by that round's requests only, and the run holds.
// Piped, stderr gets no progress line, the pre-run's neither.
func TestRaceHTTPPreRunRoundsHaveTheirOwnValues(t *testing.T) {
	l, claims, effects := newClaimLog(t, nil)
	r := startRace(t, 0, "race", "http", "-H", "Idempotency-Key: order-{{round}}", "-H", "X-Run-Key: {{key}}",
		"--rounds", "5", "--one-cpu=false", "--settle", "20ms", "--effect-url", effects+"order-{{round}}", claims)
	if code := r.wait(t); code != ExitOK {
		t.Errorf("exit %d, want 0:\nstdout:\n%s\nstderr:\n%q", code, r.out.String(), r.errs.String())
	}
	if out := r.out.String(); !strings.Contains(out, "sync: auto chose h1 with the wake release, split none: ") || !strings.Contains(out, "\nHOLDS: the gate held: exactly one win in each of 5 rounds") {
		t.Errorf("stdout is not a held run after a pre-run:\n%s", out)
	}
	if errs := r.errs.String(); errs != "" {
		t.Errorf("stderr shows %q: want nothing", errs)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	byKey := map[string][]string{}
	for _, c := range l.claims {
		if !slices.Contains(byKey[c[0]], c[1]) {
			byKey[c[0]] = append(byKey[c[0]], c[1])
		}
	}
	for key, runs := range byKey {
		if len(runs) > 1 {
			t.Errorf("the target's key %s was sent by %d rounds: %v", key, len(runs), runs)
		}
	}
	// Four candidates: split none with wake; the head withheld with wake,
	// spin and parked.
	if len(l.preKeys) != 24 {
		t.Errorf("the target saw %d pre-run rounds, want 24 (6 for each of 4 candidates): %v", len(l.preKeys), l.preKeys)
	}
	for i := 1; i <= 5; i++ {
		if len(byKey[fmt.Sprintf("order-%d", i)]) == 0 {
			t.Errorf("round %d's key order-%d was never sent", i, i)
		}
	}
}
