package httprace

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/groundtruth"
)

// countingTarget performs its effect for every request that carries a
// key, whatever its method (a handler that never looks at the method), and
// counts the connections it accepted and the requests of each method.
type countingTarget struct {
	mu      sync.Mutex
	effects map[string]int
	methods map[string]int
	keyless []string // what requests without a key were
	conns   int
	// closeAfter makes it answer "Connection: close" to these methods.
	closeAfter map[string]bool
	// alwaysWins makes it answer 201 to every keyed request, the second
	// of a key too: a gate broken every round.
	alwaysWins bool
}

func newCountingTarget(t *testing.T, closeAfter ...string) (*countingTarget, *httptest.Server) {
	g := &countingTarget{effects: map[string]int{}, methods: map[string]int{}, closeAfter: map[string]bool{}}
	for _, m := range closeAfter {
		g.closeAfter[m] = true
	}
	srv := httptest.NewUnstartedServer(g)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			g.mu.Lock()
			g.conns++
			g.mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return g, srv
}

func (g *countingTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	key := r.Header.Get(KeyHeader)
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.URL.Path == "/effects" {
		fmt.Fprintln(w, g.effects[r.URL.Query().Get("key")])
		return
	}
	g.methods[r.Method]++
	if g.closeAfter[r.Method] {
		w.Header().Set("Connection", "close")
	}
	if key == "" {
		g.keyless = append(g.keyless, r.Method+" "+r.URL.Path+" "+string(body))
		w.WriteHeader(http.StatusNoContent)
		return
	}
	g.effects[key]++
	if g.effects[key] > 1 && !g.alwaysWins {
		w.WriteHeader(http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

func (g *countingTarget) Count(key string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.effects[key]
}

func (g *countingTarget) totalEffects() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, v := range g.effects {
		n += v
	}
	return n
}

// warmProbe races the counting target over HTTP/1.1 with warm connections
// and nothing else: no calibration, no look at the server, and the thread
// release, which opens no connection of its own (wake's extra one is
// fresh every round).
func warmProbe(url string, rounds int) Probe {
	p := quick(url + "/claims")
	p.Sync, p.Release, p.Warm, p.Rounds, p.NoCalibrate = SyncH1, ReleaseThread, true, rounds, true
	return p
}

// The warm-up request carries no key and no body, so a handler that
// performs the effect for any method still performs nothing for it: every
// effect the target counted came from a request of the race.
func TestWarmUpNeverPerformsTheEffect(t *testing.T) {
	g, srv := newCountingTarget(t)
	res := run(t, warmProbe(srv.URL, 4))
	if got, want := g.totalEffects(), 4*2; got != want {
		t.Errorf("the target counted %d effects, want %d: one per raced request, none for a warm-up", got, want)
	}
	// OPTIONS * names no resource: Go's server answers it itself.
	if len(g.keyless) != 0 {
		t.Errorf("requests without a key reached the handler: %q", g.keyless)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "warmed by OPTIONS * (last answer 200)") {
		t.Errorf("no note says how connections were warmed: %q", res.Notes)
	}
}

// --warm-url names the warm-up (GET) instead.
func TestWarmURLIsTheWarmUp(t *testing.T) {
	g, srv := newCountingTarget(t)
	p := warmProbe(srv.URL, 2)
	p.WarmURL = srv.URL + "/health"
	run(t, p)
	if len(g.keyless) != g.conns || g.keyless[0] != "GET /health " || g.methods[http.MethodOptions] != 0 {
		t.Errorf("warm-ups %q (methods %v, %d connections), want GET /health once per connection", g.keyless, g.methods, g.conns)
	}
	p.WarmURL = "http://elsewhere.example/health"
	p.Defaults()
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "target's own scheme, host and port") {
		t.Errorf("a --warm-url on another host: %v, want it refused", err)
	}
}

// The connections of one round carry the next, but one: each round
// retires the connection that carried the most rounds for a fresh one,
// warmed. Over 5 rounds of 2: 2 connections, then one more per round.
func TestWarmConnectionsAreReusedAcrossRounds(t *testing.T) {
	g, srv := newCountingTarget(t)
	res := run(t, warmProbe(srv.URL, 5))
	if g.conns != 6 || g.methods[http.MethodPost] != 10 || !strings.Contains(strings.Join(res.Notes, "\n"), "6 opened, 6 warmed by OPTIONS *") {
		t.Errorf("%d connections, methods %v, notes %q; want 6 connections, each warmed once, and 10 POSTs", g.conns, g.methods, res.Notes)
	}
	for _, r := range res.Rounds {
		if r.Count(racetest.Error) > 0 {
			t.Errorf("round %d had errors: %+v", r.Index, r.Outcomes)
		}
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "4 reused from the round before, 4 retired for a fresh one") {
		t.Errorf("no note says the connections were reused: %q", res.Notes)
	}
}

// A round with two wins keeps its pairing for the next round, where a
// round with one win retires a connection (the test above): against a
// gate that lets both requests of every round through, 5 rounds of 2 are
// carried by the 2 connections of the first.
func TestWarmConnectionsKeepAPairingThatWon(t *testing.T) {
	g, srv := newCountingTarget(t)
	g.alwaysWins = true
	res := run(t, warmProbe(srv.URL, 5))
	notes := strings.Join(res.Notes, "\n")
	if g.conns != 2 || g.methods[http.MethodPost] != 10 {
		t.Errorf("%d connections, methods %v; want the 2 of round 1 for all 10 POSTs", g.conns, g.methods)
	}
	if !strings.Contains(notes, "2 opened") || strings.Contains(notes, "retired") ||
		!strings.Contains(notes, "4 rounds kept the pairing of a round before that had two wins or more") {
		t.Errorf("notes %q; want 2 opened, none retired, 4 rounds that kept their pairing", notes)
	}
}

// A server that closes the connection after a round's answer gets fresh
// connections for the next round, each warmed again.
func TestWarmConnectionsReconnectWhenTheServerCloses(t *testing.T) {
	g, srv := newCountingTarget(t, http.MethodPost)
	p := warmProbe(srv.URL, 3)
	p.WarmURL = srv.URL + "/warm" // a warm-up the handler sees, to count
	res := run(t, p)
	if g.conns != 6 || g.methods[http.MethodGet] != 6 {
		t.Errorf("%d connections, methods %v; want 6 connections, each warmed once", g.conns, g.methods)
	}
	for _, r := range res.Rounds {
		if r.Count(racetest.Error) > 0 || r.Wins() != 1 {
			t.Errorf("round %d: %+v, want one win and no error", r.Index, r.Outcomes)
		}
	}
}

// A server that closes after every answer, the warm-up's too, is warmed
// twice, then raced on unwarmed connections, and the note says so.
func TestWarmConnectionsWhenTheServerKeepsNoneAlive(t *testing.T) {
	g, srv := newCountingTarget(t, http.MethodPost, http.MethodGet)
	p := warmProbe(srv.URL, 3)
	p.WarmURL = srv.URL + "/warm"
	res := run(t, p)
	if g.methods[http.MethodGet] != 2 || g.methods[http.MethodPost] != 6 {
		t.Errorf("methods %v, want 2 warm-ups (then none) and 6 POSTs", g.methods)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "keeps none alive") {
		t.Errorf("no note says the server keeps no connection alive: %q", res.Notes)
	}
	for _, r := range res.Rounds {
		if r.Count(racetest.Error) > 0 {
			t.Errorf("round %d had errors: %+v", r.Index, r.Outcomes)
		}
	}
}

// racyOverH1 runs the effect twice only for requests that came over
// HTTP/1.1: the mirror of racyOverH2.
type racyOverH1 struct{ racyOverH2 }

func (g *racyOverH1) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/effects":
		g.racyOverH2.ServeHTTP(w, r)
	case r.ProtoMajor == 1:
		g.racy.ServeHTTP(w, r)
	default:
		g.sound.ServeHTTP(w, r)
	}
}

// With an oracle, auto keeps the candidate whose rounds counted doubled
// effects, whichever it is: here HTTP/1.1, which is not the default over
// TLS.
func TestSyncAutoPreRunByOraclePicksH1(t *testing.T) {
	url := unplacedGo(t, &racyOverH1{racyOverH2{sound: groundtruth.Sound{Replay: groundtruth.Marked}}})
	p := quick(url)
	p.Insecure, p.Warm = true, true
	p.Defaults()
	eff, err := NewURLEffect(strings.TrimSuffix(url, "/claims")+"/effects?key={{key}}", true, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer eff.Close()
	p.Effect = eff
	res := run(t, p)
	// How many of h1's six rounds catch moves with the machine's load (5 or
	// 6 of them); h2's target is sound, so it counts none.
	if res.Sync != SyncH1 || !strings.Contains(res.SyncReason, "caught the race (by the oracle's count) in 0 with h2, ") {
		t.Errorf("auto chose %s (%s), want h1 by the oracle's count", res.Sync, res.SyncReason)
	}
	if res.Verdict.Status != racetest.Broken {
		t.Errorf("verdict %s, want broken over the HTTP/1.1 auto chose", res.Verdict.Status)
	}
}

// A kept connection is checked just before a release without waiting
// (peekNow where the platform allows): one the server still holds open is
// kept, one it closed while idle, or one on which it sent bytes nobody
// asked for, is retired. The close reaches the client asynchronously, so
// the test gives it up to 2 s to be seen; the check itself never waits.
func TestKeptConnectionCheckSeesCloseAndStrayBytes(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 2)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	pair := func() (*keptConn, net.Conn) {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		s := <-accepted
		t.Cleanup(func() { s.Close() })
		return newKeptConn(c), s
	}
	becomesDead := func(k *keptConn) bool {
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
			if !k.alive() {
				return true
			}
		}
		return false
	}

	open, _ := pair()
	if !open.alive() {
		t.Errorf("an open, quiet connection was found dead")
	}
	// A deadline in the past, as one round leaves behind, must not make an
	// open connection look dead.
	_ = open.c.SetReadDeadline(time.Now().Add(-time.Second))
	if !open.alive() {
		t.Errorf("an open connection with an expired read deadline was found dead")
	}

	closed, s := pair()
	s.Close()
	if !becomesDead(closed) {
		t.Errorf("a connection the server closed was still kept after 2 s")
	}

	stray, s2 := pair()
	if _, err := s2.Write([]byte("HTTP/1.1 408 Request Timeout\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if !becomesDead(stray) {
		t.Errorf("a connection with bytes nobody asked for was still kept after 2 s")
	}
}
