package httprace

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// quick is the demo probe with a short settle so the suite stays fast.
func quick(url string) Probe {
	p := DemoProbe(url)
	p.Settle = 20 * time.Millisecond
	p.Timeout = 5 * time.Second
	return p
}

func run(t *testing.T, p Probe) *racetest.Result {
	t.Helper()
	res, err := Run(context.Background(), p)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestReadThenWrite200usIsBroken(t *testing.T) {
	for _, split := range []string{SplitHeaders, SplitLastByte, SplitNone} {
		t.Run(split, func(t *testing.T) {
			srv := httptest.NewServer(&Gate{Window: 200 * time.Microsecond})
			defer srv.Close()
			p := quick(srv.URL + "/claims")
			p.Split = split
			res := run(t, p)
			if res.Verdict.Status != racetest.Broken {
				t.Fatalf("verdict %s (%s), want broken", res.Verdict.Status, res.Verdict.Sentence)
			}
			want := "wins in round"
			if !strings.Contains(res.Verdict.Sentence, want) || !strings.Contains(res.Verdict.Sentence, "read-then-write or its unique index has a hole") {
				t.Errorf("sentence %q does not name the cause", res.Verdict.Sentence)
			}
			if r := res.Round(res.Verdict.WorstRound); r == nil || r.Wins() < 2 {
				t.Errorf("worst round %d does not show the duplicate", res.Verdict.WorstRound)
			}
		})
	}
}

func TestAtomicGateHolds(t *testing.T) {
	g := &Gate{}
	srv := httptest.NewServer(g)
	defer srv.Close()
	p := quick(srv.URL + "/claims")
	p.N = 8
	// A gate without work holds by a count, never by its responses alone
	// (its refusal takes as long as its win: docs/race.md).
	p.Effect = g.Counter()
	res := run(t, p)
	if res.Verdict.Status != racetest.Holds {
		t.Fatalf("verdict %s (%s), want holds", res.Verdict.Status, res.Verdict.Sentence)
	}
	if len(res.Rounds) != 30 {
		t.Errorf("%d rounds, want the default 30", len(res.Rounds))
	}
	if !strings.Contains(res.Verdict.Confidence, "under 5% for p >= 0.1") {
		t.Errorf("confidence %q", res.Verdict.Confidence)
	}
	for _, r := range res.Rounds {
		if r.ArrivalSpread == nil {
			t.Fatalf("round %d: no arrival spread although the target sends Server-Timing", r.Index)
		}
	}
}

// Each split withholds what it says until the release: the final \n of the
// head (and the body), the body's last byte, or with none the whole
// request, so that nothing of it reaches the server before the release.
func TestH1Splits(t *testing.T) {
	r := request{method: http.MethodPost, target: target{host: "x", requestPath: "/c"}, body: []byte("abc")}
	whole := "POST /c HTTP/1.1\r\nHost: x\r\nUser-Agent: idemcheck-race\r\nContent-Length: 3\r\n\r\nabc"
	for split, wantTail := range map[string]string{SplitHeaders: "\nabc", SplitLastByte: "c", SplitNone: whole} {
		head, tail := h1Bytes(r, split, true)
		if string(head)+string(tail) != whole || string(tail) != wantTail {
			t.Errorf("--split %s: head %q, tail %q; want the tail %q of %q", split, head, tail, wantTail, whole)
		}
	}
}

// keyRecorder answers 201 once per key and remembers every key it saw.
type keyRecorder struct {
	mu   sync.Mutex
	keys []string
	Gate
}

func (k *keyRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	k.keys = append(k.keys, r.Header.Get(KeyHeader)+"|"+r.URL.Query().Get("round"))
	k.mu.Unlock()
	k.Gate.ServeHTTP(w, r)
}

func TestTemplatesShareAKeyPerRound(t *testing.T) {
	rec := &keyRecorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	p := quick(srv.URL + "/claims?round={{round}}")
	p.N, p.Rounds = 3, 4
	run(t, p)
	perKey := map[string]int{}
	for _, k := range rec.keys {
		if strings.Contains(k, "-calibration-") {
			// The calibration's key: sent, then retried in sequence (its
			// refused retry RefusalSamples times, without an oracle), used
			// for nothing else.
			perKey["calibration"]++
			continue
		}
		perKey[k]++
	}
	if perKey["calibration"] != 1+racetest.RefusalSamples {
		t.Errorf("the calibration key was sent %d times, want %d", perKey["calibration"], 1+racetest.RefusalSamples)
	}
	delete(perKey, "calibration")
	if len(perKey) != 4 {
		t.Fatalf("saw keys %v, want 4 distinct keys (one per round)", perKey)
	}
	for k, n := range perKey {
		if n != 3 {
			t.Errorf("key %s sent %d times, want 3 (N)", k, n)
		}
	}
}

func TestServerErrorsAreInconclusive(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer srv.Close()
	p := quick(srv.URL)
	p.Rounds = 3
	res := run(t, p)
	if res.Verdict.Status != racetest.Inconclusive || !strings.Contains(res.Verdict.Sentence, "status 500") {
		t.Fatalf("verdict %s (%s), want inconclusive naming status 500", res.Verdict.Status, res.Verdict.Sentence)
	}
}

func TestEveryRequestRefusedIsBroken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "in use", http.StatusConflict)
	}))
	defer srv.Close()
	p := quick(srv.URL)
	p.Rounds = 2
	res := run(t, p)
	if res.Verdict.Status != racetest.Broken || !strings.HasPrefix(res.Verdict.Sentence, "no win in round 1") {
		t.Fatalf("verdict %s (%s), want broken: no win in round 1", res.Verdict.Status, res.Verdict.Sentence)
	}
	if !strings.Contains(res.Verdict.Cause, "failed attempt must release its slot") {
		t.Errorf("cause %q does not name the occupied slot", res.Verdict.Cause)
	}
}

func TestReplayHeaderIsNotAWin(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(KeyHeader)
		mu.Lock()
		again := seen[key]
		seen[key] = true
		mu.Unlock()
		if again {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"charge":"` + key + `","again":` + map[bool]string{true: "1", false: "0"}[again] + `}`))
	}))
	defer srv.Close()
	p := quick(srv.URL)
	p.Rounds = 3
	res := run(t, p)
	if res.Verdict.Status != racetest.Holds {
		t.Fatalf("verdict %s (%s), want holds", res.Verdict.Status, res.Verdict.Sentence)
	}
	if res.Rounds[0].Count(racetest.Replay) != 1 {
		t.Errorf("round 1 outcomes %+v, want one replay", res.Rounds[0].Outcomes)
	}
}

// TestStalledServerStopsTheRun: a server that accepts and never answers
// ends the run within the timeout, with an error naming the phase that
// waited (the calibration's first request, or round 1 without one) and
// for how long; it is no verdict, since nothing about the gate was learnt.
func TestStalledServerStopsTheRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	defer func() {
		ln.Close()
		wg.Wait()
		for _, c := range held {
			c.Close()
		}
	}()
	for _, calibrate := range []bool{true, false} {
		p := quick("http://" + ln.Addr().String() + "/claims")
		p.Timeout = 200 * time.Millisecond
		p.Deadline = 5 * time.Second
		p.NoCalibrate = !calibrate
		start := time.Now()
		res, err := Run(context.Background(), p)
		took := time.Since(start)
		var stop *racetest.StopError
		if !errors.As(err, &stop) {
			t.Fatalf("calibrate %v: Run returned %v (result %+v), want a StopError", calibrate, err, res)
		}
		want := "the calibration's first request"
		if !calibrate {
			want = "round 1"
		}
		if stop.Phase != want || stop.Elapsed < p.Timeout*9/10 || !strings.Contains(err.Error(), "no") || took > p.Timeout+time.Second {
			t.Errorf("calibrate %v: %v after %s, want phase %q after about %s", calibrate, err, took, want, p.Timeout)
		}
	}
}

func TestResetConnectionsAreInconclusive(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// Read the whole request, then reset instead of answering.
			wg.Add(1)
			go func() {
				defer wg.Done()
				br := bufio.NewReader(c)
				_, _ = http.ReadRequest(br)
				c.(*net.TCPConn).SetLinger(0)
				c.Close()
			}()
		}
	}()
	defer func() { ln.Close(); wg.Wait() }()
	p := quick("http://" + ln.Addr().String() + "/claims")
	p.Rounds = 3
	res := run(t, p)
	if res.Verdict.Status != racetest.Inconclusive {
		t.Fatalf("verdict %s (%s), want inconclusive", res.Verdict.Status, res.Verdict.Sentence)
	}
	if o := res.Rounds[0].Outcomes[0]; o.Kind != racetest.Error || o.Err != "connection reset" && o.Err != "connection closed without a response" {
		t.Errorf("outcome %+v, want an error naming the reset", o)
	}
}

func TestUnreachableTargetIsAnError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = Run(context.Background(), quick("http://"+addr))
	if err == nil || !strings.Contains(err.Error(), "no connection") {
		t.Fatalf("err %v, want no connection", err)
	}
}

func TestLimitsNeedForce(t *testing.T) {
	p := quick("http://127.0.0.1:1")
	p.N = 300
	if _, err := Run(context.Background(), p); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("err %v, want a hint to --force", err)
	}
	p.N, p.Rounds = 2, 20000
	if _, err := Run(context.Background(), p); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("err %v, want a hint to --force", err)
	}
}

func TestWindowMarksWideRoundsInconclusive(t *testing.T) {
	srv := httptest.NewServer(&Gate{})
	defer srv.Close()
	p := quick(srv.URL)
	p.Rounds = 2
	p.Window = time.Nanosecond
	res := run(t, p)
	if res.Verdict.Status != racetest.Inconclusive || !strings.Contains(res.Verdict.Sentence, "exceeds the race window") {
		t.Fatalf("verdict %s (%s), want inconclusive: spread exceeds the window", res.Verdict.Status, res.Verdict.Sentence)
	}
}

// startNode runs testdata/race/node_gate.js in mode and returns its URL.
func startNode(t *testing.T, mode string) string {
	t.Helper()
	return "http://127.0.0.1:" + runNodeScript(t, "node_gate.js", mode) + "/claims"
}

// runNodeScript runs testdata/race/script with args under node and returns
// the port it prints on its first line; the process is killed when the
// test ends. Without node the test skips, and fails under CI=true.
func runNodeScript(t *testing.T, script string, args ...string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed; the Node.js targets need it in CI")
		}
		t.Skip("node is not installed; skipping the Node.js target")
	}
	cmd := exec.Command(node, append([]string{filepath.Join("..", "..", "testdata", "race", script)}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	port, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("node did not print its port: %v", err)
	}
	return strings.TrimSpace(port)
}

func TestNodeTarget(t *testing.T) {
	for mode, want := range map[string]racetest.Status{"racy": racetest.Broken, "atomic": racetest.Holds} {
		t.Run(mode, func(t *testing.T) {
			p := quick(startNode(t, mode))
			counter, err := NewURLEffect(strings.Replace(string(p.URL), "/claims", "/effects?key={{key}}", 1), false, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer counter.Close()
			p.Effect = counter // the atomic gate does no work: only a count shows it holds
			res := run(t, p)
			if res.Verdict.Status != want {
				t.Fatalf("verdict %s (%s), want %s", res.Verdict.Status, res.Verdict.Sentence, want)
			}
		})
	}
}

// TestTargetGoneMidRunIsInconclusive: a target that stops accepting after
// the first round must not leave a holding verdict based on the rounds
// before.
func TestTargetGoneMidRunIsInconclusive(t *testing.T) {
	srv := httptest.NewUnstartedServer(&Gate{})
	ln := srv.Listener
	var mu sync.Mutex
	closed := 0
	srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st != http.StateClosed {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		// The calibration's connections (its request and its refused
		// retries), two for round 1: then the target goes away.
		if closed++; closed == 1+racetest.RefusalSamples+2 {
			ln.Close()
		}
	}
	srv.Start()
	defer srv.Close()
	p := quick(srv.URL)
	p.Rounds = 5
	p.Sync = SyncH1 // auto would look at the server on connections of its own
	res := run(t, p)
	if res.Verdict.Status != racetest.Inconclusive {
		t.Fatalf("verdict %s (%s), want inconclusive", res.Verdict.Status, res.Verdict.Sentence)
	}
}

func TestH1OverTLS(t *testing.T) {
	srv := httptest.NewTLSServer(&Gate{Window: 200 * time.Microsecond})
	defer srv.Close()
	p := quick(srv.URL + "/claims")
	p.Insecure = true // httptest's self-signed certificate
	res := run(t, p)
	if res.Sync != SyncH1 {
		t.Fatalf("--sync auto chose %s for a TLS server without h2, want h1", res.Sync)
	}
	if res.Verdict.Status != racetest.Broken {
		t.Fatalf("verdict %s (%s), want broken", res.Verdict.Status, res.Verdict.Sentence)
	}
}
