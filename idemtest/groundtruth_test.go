package idemtest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/idemtest"
	"github.com/idemcheck/idemcheck/internal/testkit/truthcases"
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
	var mu sync.Mutex
	var table []string
	t.Cleanup(func() {
		slices.Sort(table)
		t.Logf("the verdict table:\n| target | mode | verdict | evidence | test | keys doubled (the truth) |\n|---|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
	})
	for _, c := range truthcases.Cases(t, truthcases.Pool(t)) {
		t.Run(c.Name, func(t *testing.T) {
			if !c.Quiet {
				t.Parallel()
			}
			for _, counted := range []bool{false, true} {
				want := c.Without
				if counted {
					want = c.With
				}
				res, rec, doubled := raceTruthCase(t, c, counted)
				if c.Quiet && !counted && res.Verdict == idemtest.Inconclusive && want == racetest.Holds && strings.Contains(res.Message, "not clearly sooner") {
					// The verdict rests on timing; a busy machine gets one
					// more try.
					t.Logf("counted %v: %s; once more", counted, res.Message)
					res, rec, doubled = raceTruthCase(t, c, counted)
				}
				mu.Lock()
				table = append(table, fmt.Sprintf("| %s | idemtest, %s | %s | %s | %s | %d |", c.Name,
					map[bool]string{false: "no counter", true: "CountEffects"}[counted], res.Verdict, res.Evidence,
					map[bool]string{false: "passed", true: "failed"}[len(rec.errors) > 0], doubled))
				mu.Unlock()
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
				if counted && res.Evidence != idemtest.EffectCount {
					t.Errorf("counted: evidence %q, want the effect count", res.Evidence)
				}
				if !counted && res.Evidence == idemtest.EffectCount {
					t.Errorf("not counted: evidence %q", res.Evidence)
				}
				if res.Verdict == idemtest.Holds && !counted && (!strings.Contains(res.Message, "; assumed: a refusal did no work") || !strings.HasSuffix(res.Message, "add idemtest.CountEffects to prove it")) {
					t.Errorf("held by its responses without naming the assumption: %s", res.Message)
				}
				if res.Verdict == idemtest.Broken && strings.Contains(res.Message, "performed the effect") && res.Evidence == idemtest.Responses {
					t.Errorf("by its responses, the message says a request performed the effect: %s", res.Message)
				}
				prefix := map[idemtest.Verdict][]string{
					idemtest.Holds:        {"idemtest: the gate held: ", "idemtest: the gate held by its responses: "},
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

// raceTruthCase races a fresh start of c's target once through the
// library, recording how the test would have failed.
func raceTruthCase(t *testing.T, c truthcases.Case, counted bool) (*idemtest.Result, *recorder, int) {
	tg := c.Start(t)
	// A target in this process may share its table with an earlier run:
	// the truth is what this run doubled.
	already := tg.Doubled()
	opts := []idemtest.Option{idemtest.KeyHeader(tg.KeyHeader)}
	if counted {
		opts = append(opts, idemtest.CountEffects(tg.Count))
	}
	if c.Marker != "" {
		name, value, _ := strings.Cut(c.Marker, ": ")
		opts = append(opts, idemtest.ReplayHeader(name, value))
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
	return res, rec, tg.Doubled() - already
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
