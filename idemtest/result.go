package idemtest

import "github.com/idemcheck/idemcheck/idemtest/internal/core"

// Verdict is what a race concluded about the gate.
type Verdict string

const (
	// Holds: exactly one request performed the effect in every round.
	Holds Verdict = "holds"
	// Broken: more than one request performed the effect in a round (or
	// a retry of a finished key ran it again), or every request of a
	// round was refused.
	Broken Verdict = "broken"
	// Inconclusive: the evidence cannot tell, or the race could not run.
	Inconclusive Verdict = "inconclusive"
)

// Evidence is what a verdict rests on.
type Evidence string

const (
	// EffectCount: the effect counter (CountEffects) counted the effect
	// for every round's key.
	EffectCount Evidence = "effect count"
	// ReplayMarker: the replay marker (ReplayHeader, or the default one
	// the calibration saw) told replays from wins.
	ReplayMarker Evidence = "replay marker"
	// Responses: the statuses and bodies alone, read as the calibration
	// says the server answers. A verdict that holds on them assumes that a
	// refusal did no work: an effect that runs before the claim is
	// invisible to responses.
	Responses Evidence = "responses"
	// ClaimAnswers: a SQL claim's own answers (idemsql), which are the
	// effect itself.
	ClaimAnswers Evidence = "claim answers"
)

// Result is what a race found, returned for further assertions.
type Result struct {
	// Verdict is Holds, Broken or Inconclusive.
	Verdict Verdict
	// Evidence is what the verdict rests on: EffectCount, ReplayMarker,
	// Responses or, for a SQL claim, ClaimAnswers; empty when the race
	// could not run.
	Evidence Evidence
	// Message is the sentence the test passed, failed or skipped with.
	Message string
	// Rounds are the rounds that ran, in order.
	Rounds []Round
	// Report is the race's full report as `idemcheck race` prints it (the
	// calibration, the worst round, the verdict and its cause); the
	// test's log shows it when the test does not pass.
	Report string
}

// Round is one burst of N identical requests sharing one key.
type Round struct {
	// Index counts rounds from 1.
	Index int
	// Key is the round's key: a fresh random UUID for HTTP races; for
	// SQL claims, what {{key}} rendered to.
	Key string
	// Wins is how many requests performed the effect: the effect count
	// when CountEffects counted it, otherwise the successes the evidence
	// says were not replays.
	Wins int
	// Answers are what each request got: "201", "409", "timeout"; for a
	// SQL claim "1 row", "no row" or a SQLSTATE such as "23505".
	Answers []string
}

// fromOutcome turns what the shared core concluded into the public types.
func fromOutcome(o core.Outcome) *Result {
	res := &Result{Verdict: Verdict(o.Verdict), Evidence: Evidence(o.Evidence), Message: o.Message, Report: o.Report}
	for _, r := range o.Rounds {
		res.Rounds = append(res.Rounds, Round(r))
	}
	return res
}
