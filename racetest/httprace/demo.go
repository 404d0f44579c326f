package httprace

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// KeyHeader is the request header the demo targets read the key from.
const KeyHeader = "Idempotency-Key"

// Gate is an in-memory idempotency gate keyed by the Idempotency-Key
// header, used by `race demo`, the tests and the benchmark. With Window > 0
// it is a read-then-write: it looks the key up, waits Window (the time a
// real handler spends between its SELECT and its INSERT), then claims it,
// so concurrent requests can all see the key free. With Window == 0 the
// look-up and the claim are one atomic step and the gate holds. It reads
// the body before anything else and answers Server-Timing with the time
// the body's last byte was read (ArrivalMetric).
type Gate struct {
	Window time.Duration
	// Sleep makes the window a sleep (the handler's goroutine parked, as
	// in a database round trip) instead of a spin (it keeps its thread);
	// windows of 2 ms and more always sleep.
	Sleep bool

	mu     sync.Mutex
	claims map[string]int
	next   int
}

// Effects returns how many times key was claimed.
func (g *Gate) Effects(key string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.claims[key]
}

func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The arrival is when the body's last byte was read, the moment the
	// request was complete: the gate reads the body before its check, as
	// a handler that decodes its payload first does.
	arrival, err := readArrival(r)
	w.Header().Set("Server-Timing", ArrivalMetric(arrival))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	key := r.Header.Get(KeyHeader)
	if key == "" {
		http.Error(w, "missing Idempotency-Key", http.StatusBadRequest)
		return
	}
	id, ok := g.claim(key)
	if !ok {
		http.Error(w, "key already claimed", http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":%d}`, id)
}

func (g *Gate) claim(key string) (int, bool) {
	if g.Window > 0 {
		if g.Effects(key) > 0 {
			return 0, false
		}
		if g.Sleep {
			time.Sleep(g.Window)
		} else {
			spin(g.Window)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.claims == nil {
		g.claims = map[string]int{}
	}
	if g.Window == 0 && g.claims[key] > 0 {
		return 0, false
	}
	g.claims[key]++
	g.next++
	return g.next, true
}

// spin waits d by polling the clock: a sleep overshoots the 20-200 µs
// windows the probe must catch by a millisecond or more. It yields between
// polls so that a spinning handler does not starve the requests it races
// with of a processor.
func spin(d time.Duration) {
	if d >= 2*time.Millisecond {
		time.Sleep(d)
		return
	}
	for start := time.Now(); time.Since(start) < d; {
		runtime.Gosched()
	}
}

// Counter is the gate's own count as an effect oracle, for a probe in the
// same process.
func (g *Gate) Counter() EffectCounter { return gateCounter{g} }

type gateCounter struct{ g *Gate }

func (c gateCounter) Count(_ context.Context, v racetest.RoundValues) (int64, error) {
	return int64(c.g.Effects(v.Key)), nil
}

func (gateCounter) Evidence() string { return "the gate's count" }

// ServeEffects answers GET ?key=K with the bare count of K's claims: the
// gate's own count, for --effect-url.
func (g *Gate) ServeEffects(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "%d\n", g.Effects(r.URL.Query().Get("key")))
}

// DemoServer is a loopback HTTP/1.1 server for one handler.
type DemoServer struct {
	URL string
	// EffectsURL is the gate's count for --effect-url, when the server
	// serves a Gate.
	EffectsURL string
	srv        *http.Server
	wg         sync.WaitGroup
}

// StartDemoServer serves h on a fresh loopback port.
func StartDemoServer(h http.Handler) (*DemoServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo target: %v", err)
	}
	base := "http://" + ln.Addr().String()
	d := &DemoServer{URL: base + "/claims", srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	if g, ok := h.(*Gate); ok {
		mux := http.NewServeMux()
		mux.HandleFunc("GET /effects", g.ServeEffects)
		mux.Handle("/", g)
		d.srv.Handler, d.EffectsURL = mux, base+"/effects?key={{key}}"
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		_ = d.srv.Serve(ln)
	}()
	return d, nil
}

// Close stops the server and waits for it.
func (d *DemoServer) Close() {
	_ = d.srv.Close()
	d.wg.Wait()
}

// DemoProbe is the probe `race demo` runs against a demo target: the
// defaults, with a fresh key per round in the Idempotency-Key header.
func DemoProbe(url string) Probe {
	return Probe{
		Method: http.MethodPost,
		URL:    racetest.Template(url),
		Header: []Header{{Name: KeyHeader, Value: "{{key}}"}, {Name: "Content-Type", Value: "application/json"}},
		Body:   racetest.Template(`{"round":{{round}}}`),
	}
}

// DemoWindow is the demo's read-then-write window.
const DemoWindow = 200 * time.Microsecond
