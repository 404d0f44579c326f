package httprace

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// bodyKeyGate is a sound gate keyed by the "key" field of a form body, the
// kind of API a template header cannot reach. It records what it saw.
type bodyKeyGate struct {
	Gate
	mu   sync.Mutex
	seen []string
}

func (g *bodyKeyGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	g.mu.Lock()
	g.seen = append(g.seen, r.Host+" "+r.Header.Get("X-Tenant")+" "+strings.Join(r.Header.Values("X-Multi"), ",")+" "+r.PostForm.Get("key"))
	g.mu.Unlock()
	r.Header.Set(KeyHeader, r.PostForm.Get("key"))
	g.Gate.ServeHTTP(w, r)
}

// TestBuiltRequestsCarryTheKeyWhereTheBuilderPutsIt: with Build, every
// request is made in code from the round's values: the key in the body,
// every header value on its own line, the Host of the built request. With
// UUIDKeys the key is the round's UUID, and a read-then-write gate keyed
// that way is still found broken.
func TestBuiltRequestsCarryTheKeyWhereTheBuilderPutsIt(t *testing.T) {
	g := &bodyKeyGate{}
	srv := httptest.NewServer(g)
	defer srv.Close()
	p := quick(srv.URL + "/claims")
	p.Rounds, p.UUIDKeys, p.Sync = 3, true, SyncH1 // no pre-run: the gate counts every request
	p.Effect = g.Counter()                         // a gate without work holds by a count, never by its responses
	p.Build = func(v racetest.RoundValues) (*http.Request, error) {
		r, err := http.NewRequest(http.MethodPost, srv.URL+"/claims", strings.NewReader("amount=100&key="+v.Key))
		if err != nil {
			return nil, err
		}
		r.Host = "api.example"
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("X-Tenant", "t1")
		r.Header.Add("X-Multi", "a")
		r.Header.Add("X-Multi", "b")
		r.Header.Set("Content-Length", "999") // the probe frames the body itself
		return r, nil
	}
	res := run(t, p)
	if res.Verdict.Status != racetest.Holds {
		t.Fatalf("verdict %s (%s), want holds", res.Verdict.Status, res.Verdict.Sentence)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.seen) != 2+3*2 {
		t.Fatalf("the gate saw %d requests, want 8 (the calibration's 2 and 3 rounds of 2): %q", len(g.seen), g.seen)
	}
	for _, s := range g.seen {
		f := strings.Fields(s)
		if len(f) != 4 || f[0] != "api.example" || f[1] != "t1" || f[2] != "a,b" || len(f[3]) != 36 {
			t.Errorf("the gate saw %q, want host api.example, X-Tenant t1, X-Multi a,b and a UUID key", s)
		}
	}
	for _, r := range res.Rounds {
		if len(r.Key) != 36 || !strings.Contains(strings.Join(g.seen, "\n"), r.Key) {
			t.Errorf("round %d's key %q is not the UUID the gate saw", r.Index, r.Key)
		}
	}

	broken := &bodyKeyGate{Gate: Gate{Window: 2 * time.Millisecond}}
	bsrv := httptest.NewServer(broken)
	defer bsrv.Close()
	p.Build = func(v racetest.RoundValues) (*http.Request, error) {
		r, _ := http.NewRequest(http.MethodPost, bsrv.URL+"/claims", strings.NewReader("key="+v.Key))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return r, nil
	}
	p.URL = racetest.Template(bsrv.URL + "/claims")
	p.Effect = broken.Counter()
	if res := run(t, p); res.Verdict.Status != racetest.Broken {
		t.Errorf("read-then-write keyed by the body: verdict %s (%s), want broken", res.Verdict.Status, res.Verdict.Sentence)
	}
}

// TestBuiltRequestMistakesAreErrors: a builder that fails, returns no
// request, or sets a header value with a line break stops the run before
// anything is sent.
func TestBuiltRequestMistakesAreErrors(t *testing.T) {
	var sent atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		sent.Add(1)
	}))
	defer srv.Close()
	for name, build := range map[string]func(racetest.RoundValues) (*http.Request, error){
		"nil request": func(racetest.RoundValues) (*http.Request, error) { return nil, nil },
		"line break": func(racetest.RoundValues) (*http.Request, error) {
			r, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
			r.Header["X-Evil"] = []string{"a\r\nX-Injected: 1"}
			return r, nil
		},
		"relative URL": func(racetest.RoundValues) (*http.Request, error) {
			return http.NewRequest(http.MethodPost, "/claims", nil)
		},
	} {
		p := quick(srv.URL)
		p.Build = build
		if _, err := Run(t.Context(), p); err == nil {
			t.Errorf("%s: the run went ahead", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	if n := sent.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}
