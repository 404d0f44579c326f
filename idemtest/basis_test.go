package idemtest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/idemtest"
	"github.com/idemcheck/idemcheck/idemtest/idemsql"
	"github.com/idemcheck/idemcheck/racetest/groundtruth"
)

// A sound gate passes by its responses without a counter, and the result
// says so: the evidence is the responses, and the message names what that
// assumes; with the counter the evidence is the count.
func TestResultNamesItsEvidence(t *testing.T) {
	t.Parallel()
	g := &groundtruth.Sound{Replay: groundtruth.Marked}
	res := idemtest.Handler(t, g, chargeRequest(), idemtest.Rounds(5))
	if res.Evidence != idemtest.Responses || !strings.HasPrefix(res.Message, "idemtest: the gate held by its responses: exactly one win in each of 5 rounds") ||
		!strings.HasSuffix(res.Message, "; assumed: a refusal did no work; an effect that runs before the claim is invisible to responses: add idemtest.CountEffects to prove it") {
		t.Errorf("without a counter: %s, %q", res.Evidence, res.Message)
	}
	res = idemtest.Handler(t, g, chargeRequest(), idemtest.Rounds(5), idemtest.CountEffects(g.Count))
	if res.Evidence != idemtest.EffectCount || strings.Contains(res.Message, "assumed") {
		t.Errorf("with a counter: %s, %q", res.Evidence, res.Message)
	}
	// Broken by the responses alone, the failure does not say that two
	// requests performed the effect: only that two won by their answers.
	b := &groundtruth.ReadCheckWrite{}
	rec := record(t, func(tb testing.TB) { idemtest.CheckHandler(tb, b, chargeRequest(), idemtest.Rounds(5)) })
	if msg := rec.failure(t); !strings.Contains(msg, "2 requests won by their responses; two identical 201s") || strings.Contains(msg, "performed the effect") {
		t.Errorf("broken by responses: %q", msg)
	}
}

// InFlight: a sound gate that answers an in-flight duplicate 202 passes;
// Win naming 202 makes it a second win.
func TestInFlightWinRefuseOptions(t *testing.T) {
	t.Parallel()
	g := &groundtruth.Sound{Replay: groundtruth.Accepted}
	if res := idemtest.Handler(t, g, chargeRequest(), idemtest.Rounds(5)); res.Verdict != idemtest.Holds {
		t.Errorf("202 in flight: %s %q", res.Verdict, res.Message)
	}
	rec := record(t, func(tb testing.TB) {
		idemtest.CheckHandler(tb, g, chargeRequest(), idemtest.Rounds(5), idemtest.Win(201, 202), idemtest.CountEffects(g.Count))
	})
	if len(rec.errors) != 0 {
		// With the counter the count decides: the 202s did nothing.
		t.Errorf("Win(201, 202) with a counter: %q", rec.errors)
	}
	rec = record(t, func(tb testing.TB) {
		idemtest.CheckHandler(tb, g, chargeRequest(), idemtest.Rounds(5), idemtest.Win(201, 202))
	})
	if msg := rec.failure(t); !strings.Contains(msg, "gate broken") {
		t.Errorf("Win(201, 202) without a counter: %q", msg)
	}
	// A gate that refuses with 422 and does not name it is no refusal; a
	// Refuse naming it is.
	refuses := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusUnprocessableEntity) })
	rec = record(t, func(tb testing.TB) {
		idemtest.CheckHandler(tb, refuses, chargeRequest(), idemtest.Rounds(2), idemtest.Refuse(422))
	})
	if msg := rec.failure(t); !strings.Contains(msg, "no request won in round 1") {
		t.Errorf("Refuse(422): %q", msg)
	}
	for _, opt := range []struct {
		o    idemtest.Option
		want string
	}{
		{idemtest.Win(), "idemtest.Win(): give at least one status"},
		{idemtest.Refuse(42), "idemtest.Refuse(42): not an HTTP status"},
		{idemsql.Isolation("serializable"), "idemsql.Isolation does not apply to an HTTP race"},
	} {
		rec := record(t, func(tb testing.TB) { idemtest.CheckHandler(tb, g, chargeRequest(), opt.o) })
		if msg := rec.failure(t); !strings.Contains(msg, opt.want) {
			t.Errorf("option problem: %q, want %q", msg, opt.want)
		}
	}
}

// A builder that ignores its key makes every round the same request: the
// test fails before anything is sent, naming SameKey; with SameKey, round 1
// races the key and the later rounds retry it.
func TestSameKey(t *testing.T) {
	t.Parallel()
	g := &groundtruth.Sound{Replay: groundtruth.Marked}
	h := &groundtruth.Counting{Handler: g}
	fixed := idemtest.BuildRequest(func(string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/charges", strings.NewReader(`{"amount":100}`))
		r.Header.Set("Idempotency-Key", "one-key")
		return r
	})
	rec := record(t, func(tb testing.TB) { idemtest.CheckHandler(tb, h, nil, fixed) })
	if msg := rec.failure(t); !strings.Contains(msg, "makes the same request for every key") || !strings.Contains(msg, "idemtest.SameKey") || h.Requests() != 0 {
		t.Errorf("a builder that ignores its key: %q after %d requests", msg, h.Requests())
	}
	countOneKey := idemtest.CountEffects(func(ctx context.Context, _ string) (int, error) { return g.Count(ctx, "one-key") })
	res := idemtest.Handler(t, h, nil, fixed, idemtest.SameKey(), idemtest.Rounds(4), countOneKey)
	if !strings.Contains(res.Message, "exactly one win in round 1, and none in the 3 retries of its finished key") {
		t.Errorf("SameKey: %q", res.Message)
	}
	// A gate that runs a finished key again, raced with one fixed key (so
	// that no calibration runs before round 1), is broken by the retries.
	again := &groundtruth.InFlightOnly{}
	rec = record(t, func(tb testing.TB) {
		idemtest.CheckHandler(tb, again, nil, fixed, idemtest.SameKey(), idemtest.Rounds(3),
			idemtest.CountEffects(func(ctx context.Context, _ string) (int, error) { return again.Count(ctx, "one-key") }))
	})
	if msg := rec.failure(t); !strings.Contains(msg, "a retry of the key round 1 had finished ran the effect again") {
		t.Errorf("SameKey on a gate that runs a finished key again: %q", msg)
	}
}
