package httprace

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// Every HTTP/1.1 release method lands the requests of a round together:
// each catches a read-then-write gate with a window of a few milliseconds
// (counted by the gate) and finds an atomic gate holding.
func TestReleaseMethods(t *testing.T) {
	for _, method := range []string{ReleaseSpin, ReleaseParked, ReleaseThread} {
		for _, c := range []struct {
			gate *Gate
			want racetest.Status
		}{{&Gate{Window: 5 * time.Millisecond, Sleep: true}, racetest.Broken}, {&Gate{}, racetest.Holds}} {
			t.Run(method+"/"+string(c.want), func(t *testing.T) {
				srv := httptest.NewServer(c.gate)
				defer srv.Close()
				p := quick(srv.URL)
				p.Sync, p.Release, p.N, p.Rounds = SyncH1, method, 3, 5
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

func TestUnknownReleaseMethodIsRefused(t *testing.T) {
	p := quick("http://127.0.0.1:1/claims")
	p.Release = "teleport"
	p.Defaults()
	if err := p.Validate(); err == nil {
		t.Fatal("a release method that does not exist was accepted")
	}
}
