package idemtest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/idemtest"
	"github.com/idemcheck/idemcheck/internal/truthcases"
	"github.com/idemcheck/idemcheck/racetest"
)

// TestGroundTruth is the race-evidence ground-truth suite run through the
// library as a user runs it: every target that counts its own effect per
// key (the count is the truth) is raced with the defaults (2 requests, 30
// rounds), without an effect counter and with the target's own count as
// one. In-process targets go through Handler, the third-party middlewares
// (express-idempotency on Redis, Fiber) through HTTP. The verdict must be
// the table's, the test must fail exactly when the gate did not hold, and
// the library must never pass a target that counted two effects for one
// key, nor call broken one that never did. cmd/race_truth_test.go runs the
// same table through the CLI.
func TestGroundTruth(t *testing.T) {
	for _, c := range truthcases.Cases(t, truthcases.Pool(t)) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			for _, counted := range []bool{false, true} {
				want := c.Without
				if counted {
					want = c.With
				}
				tg := c.Start(t)
				opts := []idemtest.Option{idemtest.KeyHeader(tg.KeyHeader)}
				if counted {
					opts = append(opts, idemtest.CountEffects(tg.Count))
				}
				var res *idemtest.Result
				rec := record(t, func(tb testing.TB) {
					body := strings.NewReader(`{"amount":100}`)
					if tg.Handler != nil {
						res = idemtest.CheckHandler(tb, tg.Handler, httptest.NewRequest(http.MethodPost, "/charges", body), opts...)
						return
					}
					req, err := http.NewRequest(http.MethodPost, tg.URL, body)
					if err != nil {
						tb.Fatal(err)
					}
					req.Header.Set("Content-Type", "application/json")
					res = idemtest.CheckHTTP(tb, req, opts...)
				})
				doubled := tg.Doubled()
				t.Logf("counted %v: %s; the target doubled %d keys; %s", counted, res.Verdict, doubled, res.Message)
				if doubled > 0 && res.Verdict == idemtest.Holds {
					t.Errorf("counted %v: HOLDS although the target counted two effects for %d keys", counted, doubled)
				}
				if doubled == 0 && res.Verdict == idemtest.Broken {
					t.Errorf("counted %v: BROKEN although the target never counted two effects for a key", counted)
				}
				if string(res.Verdict) != string(want) {
					t.Errorf("counted %v: %s, want %s", counted, res.Verdict, want)
				}
				if failed := len(rec.errors) > 0; failed != (want != racetest.Holds) {
					t.Errorf("counted %v: the test failed: %v (%q), want %v", counted, failed, rec.errors, want != racetest.Holds)
				}
				prefix := map[idemtest.Verdict][]string{
					idemtest.Holds:        {"idemtest: the gate held: "},
					idemtest.Broken:       {"idemtest: gate broken", "idemtest: no request won in round "},
					idemtest.Inconclusive: {"idemtest: inconclusive: "},
				}[res.Verdict]
				if !hasAnyPrefix(res.Message, prefix) {
					t.Errorf("counted %v: message %q, want it to start with one of %q", counted, res.Message, prefix)
				}
			}
		})
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
