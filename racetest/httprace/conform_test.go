package httprace

import (
	"context"
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/racetest"
)

// ietfGate follows the IETF Idempotency-Key draft: 400 without a key, 409
// while the first request with a key is in flight, 422 for a key reused
// with another payload, the stored response (marked replayed) for a retry,
// and a failed attempt (a body containing "fail") releases its key.
type ietfGate struct {
	mu   sync.Mutex
	keys map[string]*ietfEntry
	next int
}

type ietfEntry struct {
	payload [32]byte
	done    bool
	status  int
	body    string
}

func (g *ietfGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get(KeyHeader)
	if key == "" {
		http.Error(w, "Idempotency-Key is required", http.StatusBadRequest)
		return
	}
	body, _ := io.ReadAll(r.Body)
	sum := sha256.Sum256(body)
	g.mu.Lock()
	if g.keys == nil {
		g.keys = map[string]*ietfEntry{}
	}
	e := g.keys[key]
	switch {
	case e != nil && e.payload != sum:
		g.mu.Unlock()
		http.Error(w, "key reused with a different payload", http.StatusUnprocessableEntity)
		return
	case e != nil && !e.done:
		g.mu.Unlock()
		http.Error(w, "a request with this key is in flight", http.StatusConflict)
		return
	case e != nil:
		g.mu.Unlock()
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(e.status)
		io.WriteString(w, e.body)
		return
	}
	e = &ietfEntry{payload: sum}
	g.keys[key] = e
	g.mu.Unlock()

	spin(100_000) // the work, 100 µs
	g.mu.Lock()
	defer g.mu.Unlock()
	if strings.Contains(string(body), "fail") {
		delete(g.keys, key) // a failed attempt releases its slot
		http.Error(w, "payment declined", http.StatusInternalServerError)
		return
	}
	g.next++
	e.done, e.status, e.body = true, http.StatusCreated, `{"id":`+strconv.Itoa(g.next)+`}`
	w.WriteHeader(e.status)
	io.WriteString(w, e.body)
}

func conformanceRun(t *testing.T, h http.Handler) []racetest.Check {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	p := quick(srv.URL)
	p.Rounds = 3
	p.Body = `{"amount":100,"round":{{round}}}`
	res := run(t, p)
	prof, err := ProfileNamed("ietf", nil)
	if err != nil {
		t.Fatal(err)
	}
	return Conform(context.Background(), p, prof, `{"amount":"fail"}`, res)
}

func TestConformanceIETFGatePasses(t *testing.T) {
	checks := conformanceRun(t, &ietfGate{})
	if len(checks) != 5 {
		t.Fatalf("%d checks, want 5", len(checks))
	}
	for _, c := range checks {
		if c.Result != racetest.CheckPass {
			t.Errorf("%s: %s: sent %s, got %s (%s)", c.Name, c.Result, c.Sent, c.Got, c.Detail)
		}
	}
}

func TestConformanceNaiveGateFails(t *testing.T) {
	checks := conformanceRun(t, &Gate{})
	// The plain gate refuses every reuse with 409: no replay, no 422, and a
	// "failing" payload is just another win. It requires a key and lets
	// distinct keys through.
	want := []racetest.CheckResult{racetest.CheckFail, racetest.CheckFail, racetest.CheckPass, racetest.CheckFail, racetest.CheckPass}
	for i, c := range checks {
		if c.Result != want[i] {
			t.Errorf("check %d %q: %s, want %s (sent %s, got %s)", i+1, c.Name, c.Result, want[i], c.Sent, c.Got)
		}
		if c.Sent == "" || c.Got == "" {
			t.Errorf("check %d does not say what was sent and what came back", i+1)
		}
	}
}

func TestProfiles(t *testing.T) {
	if _, err := ProfileNamed("acme", nil); err == nil {
		t.Error("unknown profile accepted")
	}
	stripe, _ := ProfileNamed("stripe", nil)
	if stripe.Missing != nil || !stripe.Mismatch.Has(400) || stripe.MismatchBody != "idempotency_error" {
		t.Errorf("stripe profile %+v", stripe)
	}
}
