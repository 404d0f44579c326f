package httprace

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// Every HTTP/1.1 release method lands the requests of a round together:
// each catches a read-then-write gate with a window of a few milliseconds
// (counted by the gate) and finds an atomic gate holding.
func TestReleaseMethods(t *testing.T) {
	for _, method := range []string{ReleaseSpin, ReleaseParked, ReleaseThread, ReleaseWake} {
		for _, c := range []struct {
			gate *Gate
			want racetest.Status
		}{{&Gate{Window: 5 * time.Millisecond, Sleep: true}, racetest.Broken}, {&Gate{}, racetest.Holds}} {
			t.Run(method+"/"+string(c.want), func(t *testing.T) {
				srv := httptest.NewServer(c.gate)
				defer srv.Close()
				p := quick(srv.URL)
				p.Sync, p.Release, p.N, p.Rounds = SyncH1, method, 3, 5
				p.Effect = c.gate.Counter()
				res := run(t, p)
				if res.Verdict.Status != c.want {
					t.Fatalf("verdict %s (%s), want %s", res.Verdict.Status, res.Verdict.Sentence, c.want)
				}
				for _, r := range res.Rounds {
					for _, o := range r.Outcomes {
						if o.Status == 0 {
							t.Errorf("round %d request %d: no response (%s)", r.Index, o.Request, o.Err)
						}
					}
				}
			})
		}
	}
}

// The wake release's extra connection carries a request that is never
// finished: the server reads its first lines, then the connection closes.
// Every byte the server received is recorded: one connection per round
// carries the unfinished OPTIONS, none a complete one, and only the race's
// own requests (and the calibration's two) reach the handler.
func TestWakeConnectionNeverCompletesARequest(t *testing.T) {
	g := &Gate{}
	var requests atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		g.ServeHTTP(w, r)
	}))
	rec := &recordingListener{Listener: srv.Listener}
	srv.Listener = rec
	srv.Start()
	defer srv.Close()
	p := quick(srv.URL)
	p.Sync, p.Release, p.N, p.Rounds = SyncH1, ReleaseWake, 2, 4
	p.Effect = g.Counter()
	res := run(t, p)
	if res.Verdict.Status != racetest.Holds {
		t.Fatalf("verdict %s (%s), want holds", res.Verdict.Status, res.Verdict.Sentence)
	}
	if got, want := requests.Load(), int32(2*4+2); got != want {
		t.Errorf("the handler saw %d requests, want %d (4 rounds of 2, and the calibration's 2)", got, want)
	}
	srv.CloseClientConnections()
	wakes := 0
	for _, got := range rec.received() {
		if !strings.HasPrefix(got, "OPTIONS * ") {
			continue
		}
		wakes++
		if strings.Contains(got, "\r\n\r\n") {
			t.Errorf("a wake connection finished its request: %q", got)
		}
	}
	if wakes != 4 {
		t.Errorf("%d wake connections, want one per round (4)", wakes)
	}
}

// recordingListener keeps every byte the server read, per connection.
type recordingListener struct {
	net.Listener
	mu    sync.Mutex
	conns []*recordingConn
}

func (l *recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	rc := &recordingConn{Conn: c}
	l.mu.Lock()
	l.conns = append(l.conns, rc)
	l.mu.Unlock()
	return rc, nil
}

func (l *recordingListener) received() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, len(l.conns))
	for i, c := range l.conns {
		c.mu.Lock()
		out[i] = c.buf.String()
		c.mu.Unlock()
	}
	return out
}

type recordingConn struct {
	net.Conn
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *recordingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	c.buf.Write(b[:n])
	c.mu.Unlock()
	return n, err
}

func TestUnknownReleaseMethodIsRefused(t *testing.T) {
	p := quick("http://127.0.0.1:1/claims")
	p.Release = "teleport"
	p.Defaults()
	if err := p.Validate(); err == nil {
		t.Fatal("a release method that does not exist was accepted")
	}
}
