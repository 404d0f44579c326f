package idemtest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/idemtest"
	"github.com/idemcheck/idemcheck/racetest/groundtruth"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func chargeRequest() *http.Request {
	return httptest.NewRequest(http.MethodPost, "/charges", strings.NewReader(`{"amount":100}`))
}

// The sentences, checked to the letter: a CI log line is the
// interface.
const (
	brokenCause  = "the claim is a read-then-write, or its unique constraint is missing or has a nullable key part"
	refusedCause = "the slot is held by an earlier attempt, or the claim type is not registered"
)

// TestBrokenHandlerFailsWithTheSentence: a read-then-write handler (6 ms
// between its check and its write) fails the test in every round, and the
// failure names the round, the evidence and the cause. Handler is the
// require form: nothing after it runs.
func TestBrokenHandlerFailsWithTheSentence(t *testing.T) {
	t.Parallel()
	g := &groundtruth.ReadCheckWrite{}
	after := false
	rec := record(t, func(tb testing.TB) {
		idemtest.Handler(tb, g, chargeRequest(), idemtest.CountEffects(g.Count))
		after = true
	})
	if after || !rec.stopped {
		t.Error("the test went on after Handler found the gate broken")
	}
	msg := rec.failure(t)
	want := regexp.MustCompile(`^idemtest: gate broken in (\d+) of 30 rounds \(round \d+: 2 requests performed the effect; effect count 2\): ` + regexp.QuoteMeta(brokenCause) + `$`)
	if !want.MatchString(msg) {
		t.Errorf("failure\n%s\nwant it to match\n%s", msg, want)
	}
	if !strings.Contains(rec.log(), "race POST http://127.0.0.1:") || !strings.Contains(rec.log(), "worst round: round") {
		t.Errorf("the log lacks the race's report (target, worst round):\n%s", rec.log())
	}
	if n, _ := g.Doubled(t.Context()); n == 0 {
		t.Error("the target counted no doubled key: the race did not race")
	}

	// Without a counter the responses decide: two 201s, and a server that
	// refused the calibration retry with 409 does not replay.
	g = &groundtruth.ReadCheckWrite{}
	rec = record(t, func(tb testing.TB) { idemtest.Handler(tb, g, chargeRequest()) })
	msg = rec.failure(t)
	if !strings.Contains(msg, "2 requests won by their responses; two identical 201s, and this server refused the calibration retry with 409, so it does not replay): "+brokenCause) {
		t.Errorf("failure without a counter %q does not name the responses' evidence", msg)
	}
}

// TestSoundHandlerPasses: an atomic gate passes, and the result says how:
// one win per round, a 201 and a 409.
func TestSoundHandlerPasses(t *testing.T) {
	t.Parallel()
	g := &groundtruth.Sound{Replay: groundtruth.Marked}
	res := idemtest.Handler(t, g, chargeRequest(), idemtest.CountEffects(g.Count), idemtest.N(3), idemtest.Rounds(10))
	if res.Verdict != idemtest.Holds || !strings.HasPrefix(res.Message, "idemtest: the gate held: exactly one win in each of 10 rounds") {
		t.Fatalf("verdict %s: %s", res.Verdict, res.Message)
	}
	keys := map[string]bool{}
	for _, r := range res.Rounds {
		if r.Wins != 1 || len(r.Answers) != 3 || !strings.Contains(strings.Join(r.Answers, " "), "201") {
			t.Errorf("round %d: %d wins, answers %v; want 1 win among 3 answers with a 201", r.Index, r.Wins, r.Answers)
		}
		if len(r.Key) != 36 || keys[r.Key] {
			t.Errorf("round %d: key %q is not a fresh UUID", r.Index, r.Key)
		}
		keys[r.Key] = true
	}
}

// TestRefusedFirstClaimFails: a gate that refuses every request, the first
// one too, fails with the sentence for zero wins.
func TestRefusedFirstClaimFails(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"unknown claim type"}`, http.StatusConflict)
	})
	rec := record(t, func(tb testing.TB) { idemtest.Handler(tb, h, chargeRequest()) })
	msg := rec.failure(t)
	if first, _, _ := strings.Cut(msg, "\n"); first != "idemtest: no request won in round 1: "+refusedCause {
		t.Errorf("failure %q", msg)
	}
	if !strings.Contains(msg, "round 1: every request was refused (two 409s refused)") {
		t.Errorf("failure %q does not show the round's answers", msg)
	}
}

// TestInconclusiveFailsOrSkips: a sound gate that answers a duplicate with
// the winner's bytes, unmarked, cannot be judged on its responses. That
// fails the test with the settling advice in the options' names, or skips
// it with the same words under SkipInconclusive; the effect counter then
// settles it.
func TestInconclusiveFailsOrSkips(t *testing.T) {
	t.Parallel()
	g := &groundtruth.Sound{Replay: groundtruth.SameBytes}
	opts := []idemtest.Option{idemtest.Rounds(5)}
	rec := record(t, func(tb testing.TB) { idemtest.Handler(tb, g, chargeRequest(), opts...) })
	msg := rec.failure(t)
	for _, want := range []string{
		"idemtest: inconclusive: 5 of 5 rounds are unresolved; round 1 had two identical 201s that cannot be told apart",
		"Settle it with an effect counter that counts the effect per key (idemtest.CountEffects), or a replay marker the server sets on replays (idemtest.ReplayHeader; by default Idempotent-Replayed: true).",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "--") {
		t.Errorf("failure %q names CLI flags", msg)
	}

	rec = record(t, func(tb testing.TB) {
		idemtest.Handler(tb, g, chargeRequest(), append(opts, idemtest.SkipInconclusive())...)
	})
	if len(rec.errors) != 0 || rec.skipped != msg {
		t.Errorf("with SkipInconclusive: errors %q, skipped with %q; want a skip with %q", rec.errors, rec.skipped, msg)
	}

	res := idemtest.Handler(t, g, chargeRequest(), append(opts, idemtest.CountEffects(g.Count))...)
	if !strings.Contains(res.Message, "the effect count was 1 in every round") {
		t.Errorf("with a counter: %s", res.Message)
	}
}

// TestCheckFormGoesOn: CheckHandler marks the test failed and returns the
// result, whose rounds show the duplicate.
func TestCheckFormGoesOn(t *testing.T) {
	t.Parallel()
	g := &groundtruth.ReadCheckWrite{}
	var res *idemtest.Result
	rec := record(t, func(tb testing.TB) {
		res = idemtest.CheckHandler(tb, g, chargeRequest(), idemtest.CountEffects(g.Count), idemtest.Rounds(3))
	})
	if rec.stopped || res == nil {
		t.Fatal("CheckHandler stopped the test")
	}
	if len(rec.errors) != 1 || res.Verdict != idemtest.Broken || rec.errors[0] != res.Message {
		t.Fatalf("errors %q, verdict %s, message %q", rec.errors, res.Verdict, res.Message)
	}
	if len(res.Rounds) != 3 || res.Rounds[0].Wins != 2 || strings.Join(res.Rounds[0].Answers, " ") != "201 201" {
		t.Errorf("rounds %+v, want 3 with 2 wins (201 201) in the first", res.Rounds)
	}
	if !strings.Contains(res.Report, "BROKEN: 2 wins in round") {
		t.Errorf("report %q lacks the verdict", res.Report)
	}
}

// TestHTTPRacesAURL: HTTP races a server the test started, with the key in
// a header of the server's choosing; a relative URL is a mistake said in
// the helper's name.
func TestHTTPRacesAURL(t *testing.T) {
	t.Parallel()
	var seen sync.Map
	g := &groundtruth.Sound{Replay: groundtruth.Marked}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("X-Request-Key")
		seen.Store(key, true)
		r.Header.Set(groundtruth.KeyHeader, key)
		g.ServeHTTP(w, r)
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/charges", strings.NewReader(`{"amount":100}`))
	res := idemtest.HTTP(t, req, idemtest.KeyHeader("X-Request-Key"), idemtest.Rounds(5), idemtest.CountEffects(g.Count))
	for _, r := range res.Rounds {
		if _, ok := seen.Load(r.Key); !ok {
			t.Errorf("round %d's key %s never reached the server in X-Request-Key", r.Index, r.Key)
		}
	}

	rec := record(t, func(tb testing.TB) { idemtest.HTTP(tb, chargeRequest()) })
	if msg := rec.failure(t); !strings.Contains(msg, `URL "/charges": want an http:// or https:// URL`) {
		t.Errorf("relative URL: %q", msg)
	}
}

// TestBuildRequestPutsTheKeyInTheBody: for an API that reads its key from
// the JSON body, BuildRequest places it; the broken and the sound gate are
// told apart as with a header.
func TestBuildRequestPutsTheKeyInTheBody(t *testing.T) {
	t.Parallel()
	bodyKey := func(g http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body struct{ Key string }
			if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Key == "" {
				http.Error(w, "no key in the body", http.StatusBadRequest)
				return
			}
			r.Header.Set(groundtruth.KeyHeader, body.Key)
			g.ServeHTTP(w, r)
		})
	}
	build := idemtest.BuildRequest(func(key string) *http.Request {
		return httptest.NewRequest(http.MethodPost, "/charges", strings.NewReader(`{"amount":100,"key":"`+key+`"}`))
	})
	sound := &groundtruth.Sound{Replay: groundtruth.Marked}
	idemtest.Handler(t, bodyKey(sound), nil, build, idemtest.Rounds(5), idemtest.CountEffects(sound.Count))

	broken := &groundtruth.ReadCheckWrite{}
	rec := record(t, func(tb testing.TB) {
		idemtest.Handler(tb, bodyKey(broken), nil, build, idemtest.Rounds(5), idemtest.CountEffects(broken.Count))
	})
	if msg := rec.failure(t); !strings.HasPrefix(msg, "idemtest: gate broken in ") {
		t.Errorf("broken gate keyed by the body: %q", msg)
	}

	rec = record(t, func(tb testing.TB) { idemtest.Handler(tb, bodyKey(sound), chargeRequest(), build) })
	if msg := rec.failure(t); msg != "idemtest: idemtest.Handler: give a request or idemtest.BuildRequest, not both" {
		t.Errorf("both a request and a builder: %q", msg)
	}
}

// TestReplayHeaderNamesTheServersMarker: a server that marks its replays
// with a header of its own is judged on it once ReplayHeader names it;
// without it the same server is inconclusive.
func TestReplayHeaderNamesTheServersMarker(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	done := map[string]bool{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		mu.Lock()
		replay := done[key]
		done[key] = true
		mu.Unlock()
		if replay {
			w.Header().Set("X-Cache", "replayed")
		} else {
			time.Sleep(groundtruth.Window)
		}
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"charged":true}`))
	})
	res := idemtest.Handler(t, h, chargeRequest(), idemtest.ReplayHeader("X-Cache", "replayed"), idemtest.Rounds(5))
	if !strings.Contains(res.Message, "the others were marked as replays") {
		t.Errorf("with the marker named: %s", res.Message)
	}
	rec := record(t, func(tb testing.TB) { idemtest.Handler(tb, h, chargeRequest(), idemtest.Rounds(5)) })
	if msg := rec.failure(t); !strings.HasPrefix(msg, "idemtest: inconclusive: ") {
		t.Errorf("without the marker named: %q", msg)
	}
}

// TestOptionMistakesFailBeforeAnythingIsSent: options that cannot run fail
// the test in the options' own names, and no request reaches the handler.
func TestOptionMistakesFailBeforeAnythingIsSent(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) })
	cases := map[string][]idemtest.Option{
		"idemtest.N(1): a race needs at least 2 requests":                          {idemtest.N(1)},
		"idemtest.N(300): above 256 requests a race turns into a load test":        {idemtest.N(300)},
		"idemtest.Rounds(0): a race needs at least 1 round":                        {idemtest.Rounds(0)},
		`idemtest.KeyHeader("Idempotency Key"): not a header name`:                 {idemtest.KeyHeader("Idempotency Key")},
		`idemtest.ReplayHeader("", "true"): want a header name and a value`:        {idemtest.ReplayHeader("", "true")},
		"idemtest.CountEffects(nil): no counter":                                   {idemtest.CountEffects(nil)},
		"idemtest.Window(-1s): the window cannot be negative":                      {idemtest.Window(-time.Second)},
		"idemtest.N(0): a race needs at least 2 requests; idemtest.Rounds(-1): a…": {idemtest.N(0), idemtest.Rounds(-1)},
	}
	for want, opts := range cases {
		rec := record(t, func(tb testing.TB) { idemtest.Handler(tb, h, chargeRequest(), opts...) })
		got := strings.TrimPrefix(rec.failure(t), "idemtest: ")
		if prefix, cut := strings.CutSuffix(want, "…"); cut && strings.HasPrefix(got, prefix) || got == want {
			continue
		}
		t.Errorf("failure %q, want %q", got, want)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the handler", n)
	}
	rec := record(t, func(tb testing.TB) { idemtest.CheckHandler(tb, nil, chargeRequest()) })
	if msg := rec.failure(t); msg != "idemtest: idemtest.CheckHandler: the handler is nil" {
		t.Errorf("nil handler: %q", msg)
	}
}

// TestHandlerLogsGoToTheTest: what the handler's server logs (a panic)
// reaches t.Log, and a panicking handler is inconclusive, never a pass.
func TestHandlerLogsGoToTheTest(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	rec := record(t, func(tb testing.TB) { idemtest.Handler(tb, h, chargeRequest(), idemtest.Rounds(2)) })
	if !strings.Contains(rec.log(), "idemtest: the handler's server: http: panic serving") || !strings.Contains(rec.log(), "boom") {
		t.Errorf("the panic is not in the test's log:\n%s", rec.log())
	}
	if msg := rec.failure(t); !strings.HasPrefix(msg, "idemtest: inconclusive: ") {
		t.Errorf("failure %q", msg)
	}
}

// TestParallelRacesShareNothing: races in parallel subtests, each with its
// own handler, reach their own verdicts (run under -race in CI).
func TestParallelRacesShareNothing(t *testing.T) {
	t.Parallel()
	for i := range 4 {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			if i%2 == 0 {
				g := &groundtruth.Sound{Replay: groundtruth.Marked}
				idemtest.Handler(t, g, chargeRequest(), idemtest.Rounds(5), idemtest.CountEffects(g.Count))
				return
			}
			g := &groundtruth.ReadCheckWrite{}
			res := idemtest.CheckHandler(&quietTB{TB: t}, g, chargeRequest(), idemtest.Rounds(5), idemtest.CountEffects(g.Count))
			if res.Verdict != idemtest.Broken {
				t.Errorf("read-then-write in parallel: %s", res.Message)
			}
		})
	}
}

// quietTB lets a Check form fail without failing the real test.
type quietTB struct{ testing.TB }

func (quietTB) Helper()               {}
func (quietTB) Log(...any)            {}
func (quietTB) Error(...any)          {}
func (quietTB) Errorf(string, ...any) {}
