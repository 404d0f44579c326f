package core

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// Form is how a helper tells the test that the gate failed.
type Form int

const (
	// Require stops the test (t.Fatal), as testify's require does.
	Require Form = iota
	// Check marks the test failed and lets it go on (t.Error), as
	// testify's assert does.
	Check
)

// Outcome is what the helpers return, before it takes the public types.
type Outcome struct {
	// Verdict is a racetest.Status: holds, broken or inconclusive.
	Verdict string
	// Evidence is a racetest.EvidenceKind: what the verdict rests on.
	Evidence string
	Message  string
	Report   string
	Rounds   []Round
}

// Round mirrors idemtest.Round, field for field, so that it converts.
type Round struct {
	Index   int
	Key     string
	Wins    int
	Answers []string
}

// Context is the race's context: the test's own, ending where the test's
// deadline (go test -timeout) leaves time to report. The second result is
// the deadline the probes bound their run with.
func Context(t testing.TB) (context.Context, time.Duration, context.CancelFunc) {
	run := 5 * time.Minute
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := d.Deadline(); ok {
			// A tenth of what is left (at most 5 s) stays for the report;
			// a test with less than a second left gets the second.
			left := time.Until(dl)
			run = max(time.Second, min(run, left-min(left/10, 5*time.Second)))
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), run)
	return ctx, run, cancel
}

// CannotRun fails the test for a race that could not run: a mistake in the
// options or a target out of reach. No option makes that a skip.
func CannotRun(t testing.TB, form Form, format string, args ...any) Outcome {
	t.Helper()
	msg := "idemtest: " + fmt.Sprintf(format, args...)
	out := Outcome{Verdict: string(racetest.Inconclusive), Message: msg}
	if form == Check {
		t.Error(msg)
	} else {
		t.Fatal(msg)
	}
	return out
}

// Finish judges the race's result for the test: a gate that held is
// logged; a broken one fails it; an inconclusive one fails it too, or
// skips it with the reason when the settings say so. The report, as
// `idemcheck race` prints it with the causes in the options' names, goes
// to t.Log when the test does not pass.
func Finish(t testing.TB, res *racetest.Result, s *Settings, form Form) Outcome {
	t.Helper()
	res.Verdict.Cause = libraryCause(res.Verdict.Cause)
	if res.Verdict.Assumption != "" {
		res.Verdict.Assumption = libraryAssumptionOf(res.Verdict.Assumption)
	}
	var report strings.Builder
	_ = racetest.WriteText(&report, res, false)
	out := Outcome{Verdict: string(res.Verdict.Status), Evidence: string(res.Verdict.Evidence), Message: Message(res), Report: report.String()}
	for i := range res.Rounds {
		out.Rounds = append(out.Rounds, round(&res.Rounds[i]))
	}
	if res.Verdict.Status == racetest.Holds {
		t.Log(out.Message)
		return out
	}
	// The log gets what led to the verdict; the verdict itself, and the
	// diagnosis, are in the message that follows.
	t.Log(beforeVerdict(out.Report, res.Verdict.Status))
	if res.Verdict.Status == racetest.Inconclusive && s.SkipInconclusive {
		t.Skip(out.Message)
		return out
	}
	if form == Check {
		t.Error(out.Message)
	} else {
		t.Fatal(out.Message)
	}
	return out
}

func round(r *racetest.Round) Round {
	out := Round{Index: r.Index, Key: r.Key, Wins: r.Wins()}
	for _, o := range r.Outcomes {
		out.Answers = append(out.Answers, answer(o))
	}
	return out
}

// answer is what one request or claim got: "201", "409", "1 row",
// "no row", "23505", "timeout".
func answer(o racetest.Outcome) string {
	switch {
	case o.Answer != "":
		return o.Answer
	case o.Status == 0 && o.Err != "":
		return o.Err
	}
	return strconv.Itoa(o.Status)
}

// beforeVerdict is the report up to its verdict line ("BROKEN: ...").
func beforeVerdict(report string, st racetest.Status) string {
	if i := strings.Index(report, "\n"+strings.ToUpper(string(st))+": "); i >= 0 {
		return report[:i]
	}
	return strings.TrimSuffix(report, "\n")
}
