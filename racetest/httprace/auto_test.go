package httprace

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/nginxtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/groundtruth"
)

// goServer serves h the way Go's net/http does by default: "h1" (HTTP/1.1
// only), "h2c" (HTTP/1.1 and cleartext HTTP/2) or "h2tls" (TLS, ALPN h2
// and http/1.1).
func goServer(t *testing.T, kind string, h http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	switch kind {
	case "h1":
		srv.Start()
	case "h2c":
		srv.Config.Protocols = new(http.Protocols)
		srv.Config.Protocols.SetHTTP1(true)
		srv.Config.Protocols.SetUnencryptedHTTP2(true)
		srv.Start()
	case "h1tls":
		srv.StartTLS()
	case "h2tls":
		srv.EnableHTTP2 = true
		srv.StartTLS()
	}
	t.Cleanup(srv.Close)
	return srv.URL + "/claims"
}

// nodeServer runs testdata/race/node_servers.js as kind and returns its URL.
func nodeServer(t *testing.T, kind string) string {
	t.Helper()
	args := []string{kind}
	scheme := "http"
	if kind == "h2tls" {
		args = append(args, selfSigned(t)...)
		scheme = "https"
	}
	return scheme + "://127.0.0.1:" + runNodeScript(t, "node_servers.js", args...) + "/claims"
}

// nginxServer runs Debian's nginx (HTTP/2 and HTTP/1.1 over TLS) in
// front of h served by Go over HTTP/1.1, and returns its URL.
func nginxServer(t *testing.T, h http.Handler) string {
	t.Helper()
	up := httptest.NewServer(h)
	t.Cleanup(up.Close)
	s, err := nginxtest.Start(t.TempDir(), strings.TrimPrefix(up.URL, "http://"))
	if errors.Is(err, nginxtest.ErrNotInstalled) {
		if os.Getenv("CI") == "true" {
			t.Fatal("nginx is not installed; the --sync auto tests need it in CI")
		}
		t.Skip("nginx is not installed; skipping the nginx row")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.URL + "/claims"
}

// selfSigned writes a key and a certificate for 127.0.0.1
// (nginxtest.SelfSigned) and returns their file names.
func selfSigned(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	if err := nginxtest.SelfSigned(dir); err != nil {
		t.Fatal(err)
	}
	return []string{filepath.Join(dir, "key.pem"), filepath.Join(dir, "cert.pem")}
}

// chosen runs only --sync auto's choice against url.
func chosen(t *testing.T, url string) (string, string) {
	t.Helper()
	p := quick(url)
	p.Insecure = true
	p.Defaults()
	sync, why, _, err := chooseSync(context.Background(), &p, nil)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return sync, why
}

// TestSyncAutoTable: each row of the table in docs/race-sync.md, against
// the real server it names, served as it is by default.
func TestSyncAutoTable(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, c := range []struct {
		name, sync, because string
		url                 func(t *testing.T) string
	}{
		{"Go net/http HTTP/1.1", SyncH1, "cleartext HTTP/1.1", func(t *testing.T) string { return goServer(t, "h1", ok) }},
		{"Go net/http h2c", SyncH1, "cleartext HTTP/1.1", func(t *testing.T) string { return goServer(t, "h2c", ok) }},
		{"Go net/http h2 over TLS", SyncH2, "Go net/http by SETTINGS MAX_CONCURRENT_STREAMS=250", func(t *testing.T) string { return goServer(t, "h2tls", ok) }},
		{"Node http", SyncH1, "cleartext HTTP/1.1", func(t *testing.T) string { return nodeServer(t, "h1") }},
		{"Go net/http HTTP/1.1 over TLS", SyncH1, "does not offer HTTP/2 by ALPN", func(t *testing.T) string { return goServer(t, "h1tls", ok) }},
		{"Node http2 cleartext", SyncH2, "speaks only HTTP/2", func(t *testing.T) string { return nodeServer(t, "h2c") }},
		{"Node http2 over TLS with HTTP/1.1", SyncH2, "Node.js http2 by an empty SETTINGS frame", func(t *testing.T) string { return nodeServer(t, "h2tls") }},
		{"nginx in front of Go HTTP/1.1", SyncH2, "nginx by Server: nginx/", func(t *testing.T) string { return nginxServer(t, ok) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			sync, why := chosen(t, c.url(t))
			if sync != c.sync || !strings.Contains(why, c.because) {
				t.Errorf("auto chose %s (%s), want %s because %q", sync, why, c.sync, c.because)
			}
		})
	}
}

// unplacedGo is Go's server over TLS with a stream limit of its own,
// which the table does not place: its SETTINGS are not the default ones.
func unplacedGo(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 100}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL + "/claims"
}

// A server the table cannot place is measured by a short pre-run when it
// sends Server-Timing arrivals, and gets the default mode, said so, when
// nothing can be measured.
func TestSyncAutoUnplacedServer(t *testing.T) {
	t.Run("Server-Timing: pre-run", func(t *testing.T) {
		sync, why := chosen(t, unplacedGo(t, &Gate{}))
		if !strings.Contains(why, "does not place") || !strings.Contains(why, "median arrival spread (Server-Timing)") {
			t.Errorf("auto chose %s (%s), want a pre-run measured by the arrival spread", sync, why)
		}
	})
	t.Run("nothing to measure: default", func(t *testing.T) {
		sync, why := chosen(t, unplacedGo(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) })))
		if sync != SyncH2 || !strings.Contains(why, "no pre-run could measure it and the default stands") {
			t.Errorf("auto chose %s (%s), want the default over TLS, h2, said so", sync, why)
		}
	})
}

// The choice and its reason reach the output.
func TestSyncAutoSaysWhy(t *testing.T) {
	p := quick(goServer(t, "h2tls", &Gate{}))
	p.Rounds, p.Insecure = 1, true
	res := run(t, p)
	var b strings.Builder
	if err := racetest.WriteText(&b, res, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nsync: auto chose h2: Go net/http by SETTINGS") {
		t.Errorf("the text output does not say why auto chose h2:\n%s", b.String())
	}
}

// racyOverH2 runs the effect twice only for requests that came over
// HTTP/2: a target on which the two modes differ for certain.
type racyOverH2 struct {
	racy  groundtruth.ReadCheckWrite
	sound groundtruth.Sound
}

func (g *racyOverH2) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/effects" {
		a, _ := g.racy.Count(r.Context(), r.URL.Query().Get("key"))
		b, _ := g.sound.Count(r.Context(), r.URL.Query().Get("key"))
		fmt.Fprintln(w, a+b)
		return
	}
	if r.ProtoMajor == 2 {
		g.racy.ServeHTTP(w, r)
		return
	}
	g.sound.ServeHTTP(w, r)
}

// With an oracle, the pre-run keeps the mode that caught the race in more
// rounds, by the count.
func TestSyncAutoPreRunByOracle(t *testing.T) {
	url := unplacedGo(t, &racyOverH2{sound: groundtruth.Sound{Replay: groundtruth.Marked}})
	p := quick(url)
	p.Insecure = true
	p.Defaults()
	eff, err := NewURLEffect(strings.TrimSuffix(url, "/claims")+"/effects?key={{key}}", true, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer eff.Close()
	p.Effect = eff
	sync, why, _, err := chooseSync(context.Background(), &p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sync != SyncH2 || !strings.Contains(why, "caught the race (by the oracle's count) in 6 with h2, 0 with h1 with the wake release") {
		t.Errorf("auto chose %s (%s), want h2 by the oracle's count", sync, why)
	}
}

// preRunWatch is a PreRunProgress that writes down what it is told, and
// how many claims its target had been sent at each call.
type preRunWatch struct {
	mu       sync.Mutex
	claims   []string // X-Round of each claim, in arrival order
	preRun   []int    // claims sent when PreRun was called
	preSync  string
	statuses []PreRunStatus
	started  int // claims sent when Start was called (-1: not called)
}

func (w *preRunWatch) PreRun(res *racetest.Result, rounds int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.preRun, w.preSync = append(w.preRun, len(w.claims)), res.Sync
}

func (w *preRunWatch) PreRound(s PreRunStatus) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.statuses = append(w.statuses, s)
}

func (w *preRunWatch) Start(*racetest.Result, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.started = len(w.claims)
}

func (w *preRunWatch) Round(*racetest.Round) {}

// The pre-run is told of before its first request reaches the target, and
// as it goes; its rounds' {{round}} values follow the run's (3 rounds:
// h1's pre-run rounds are 4 to 8, h2's 9 to 13), so none is sent again by
// a round of the run or by the other mode.
func TestSyncAutoPreRunShownAndNumbered(t *testing.T) {
	w := &preRunWatch{started: -1}
	gate := &Gate{}
	url := unplacedGo(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.claims = append(w.claims, r.Header.Get("X-Round"))
		w.mu.Unlock()
		gate.ServeHTTP(rw, r)
	}))
	p := quick(url)
	p.Insecure, p.Rounds, p.Progress = true, 3, w
	p.Header = append(p.Header, Header{Name: "X-Round", Value: "{{round}}"})
	res := run(t, p)
	if !strings.Contains(res.SyncReason, "median arrival spread (Server-Timing)") {
		t.Fatalf("auto chose %s (%s), want a pre-run measured by the arrival spread", res.Sync, res.SyncReason)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.preRun) != 1 || w.preRun[0] != 0 || w.preSync != SyncAuto {
		t.Errorf("PreRun was called %d times, after %v claims, with sync %q: want once, before the first, with sync auto", len(w.preRun), w.preRun, w.preSync)
	}
	if n := len(w.statuses); n == 0 || w.statuses[n-1] != (PreRunStatus{Done: 10, Budget: 10, Candidate: 2, Candidates: 2, Name: SyncH2}) ||
		w.statuses[0] != (PreRunStatus{Budget: 10, Candidate: 1, Candidates: 2, Name: SyncH1}) {
		t.Errorf("the pre-run's statuses are %+v: want 0 of 10 rounds with h1 first, 10 of 10 with h2 last", w.statuses)
	}
	if w.started < 0 {
		t.Fatal("Start was never called")
	}
	pre, rest := w.claims[:w.started], w.claims[w.started:]
	want := map[string]int{}
	for i := 4; i <= 13; i++ {
		want[fmt.Sprint(i)] = 2 // N
	}
	if got := counts(pre); !maps.Equal(got, want) {
		t.Errorf("the pre-run sent {{round}} %v (value: requests): want 4 to 13, 2 requests each", got)
	}
	got := counts(rest)
	cal := got["0"]
	delete(got, "0")
	if cal == 0 || !maps.Equal(got, map[string]int{"1": 2, "2": 2, "3": 2}) {
		t.Errorf("the calibration and the rounds sent {{round}} %v and 0 %d times: want 0 (the calibration's) and 1 to 3", got, cal)
	}
}

func counts(ss []string) map[string]int {
	m := map[string]int{}
	for _, s := range ss {
		m[s]++
	}
	return m
}

// Without an oracle, a run of winPreRunMin rounds or more with --split
// auto races each split for a tenth of its rounds (at least 6) and says
// what the wins scored; a shorter run takes split none without a pre-run.
func TestSyncAutoPreRunByWins(t *testing.T) {
	for _, tc := range []struct {
		rounds int
		pre    bool
	}{{winPreRunMin, true}, {winPreRunMin - 1, false}} {
		gate := &Gate{Window: 2 * time.Millisecond}
		var mu sync.Mutex
		preKeys := map[string]int{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if k := r.Header.Get(KeyHeader); strings.Contains(k, "-pre-") {
				mu.Lock()
				preKeys[k]++
				mu.Unlock()
			}
			gate.ServeHTTP(w, r)
		}))
		p := quick(srv.URL + "/claims")
		p.Defaults()
		p.Sync, p.Split, p.Rounds = SyncAuto, SplitAuto, tc.rounds
		res := run(t, p)
		srv.Close()
		mu.Lock()
		pre := len(preKeys)
		mu.Unlock()
		if !tc.pre {
			if pre != 0 || res.Split != SplitNone || strings.Contains(res.SyncReason, "pre-run") {
				t.Errorf("%d rounds: %d pre-run keys, split %s (%s): want no pre-run and split none", tc.rounds, pre, res.Split, res.SyncReason)
			}
			continue
		}
		if pre != 2*6 {
			t.Errorf("%d rounds: the target saw %d pre-run keys, want 12 (6 rounds for each of 2 splits)", tc.rounds, pre)
		}
		if !strings.Contains(res.SyncReason, "a pre-run of 6 rounds per candidate, with no oracle, counted wins beyond the first of each round") ||
			!strings.Contains(res.SyncReason, " with h1 with the wake release, split none, ") ||
			!strings.HasSuffix(res.SyncReason, " with h1 with the wake release, split headers") {
			t.Errorf("%d rounds: auto chose %s, split %s (%s): want a pre-run by wins of split none and split headers", tc.rounds, res.Sync, res.Split, res.SyncReason)
		}
		if res.Split != SplitNone && res.Split != SplitHeaders {
			t.Errorf("%d rounds: split %q after the pre-run, want none or headers", tc.rounds, res.Split)
		}
	}
}
