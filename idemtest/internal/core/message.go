package core

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/racetest"
)

// The causes as a Go test reads them. The CLI's words name its flags; these
// name the options, and the broken and refused ones are the sentences the
// two-thread test has always failed with.
const (
	brokenWords  = "the claim is a read-then-write, or its unique constraint is missing or has a nullable key part"
	refusedWords = "the slot is held by an earlier attempt, or the claim type is not registered"
	retryWords   = "there is no gate on this route, the gate does not read this key, " +
		"or the claim's unique constraint is missing or has a nullable key part"
	inconclusiveAdvice = "Errors, timeouts and spreads wider than the race window say nothing " +
		"about the gate; fix the target, or widen the window (idemtest.Window), and run again."
	settleAdvice = "Settle it with an effect counter that counts the effect per key " +
		"(idemtest.CountEffects), or a replay marker the server sets on replays " +
		"(idemtest.ReplayHeader; by default Idempotent-Replayed: true)."
)

// libraryCause is the cause line of the report in the options' names.
func libraryCause(cause string) string {
	switch cause {
	case racetest.CauseInconclusive:
		return inconclusiveAdvice
	case racetest.CauseSettle:
		return settleAdvice
	}
	return cause
}

// Message is the sentence a test fails (or passes) with: its first line
// names the verdict, the round and the evidence, and the cause; further
// lines carry what a person needs next (the diagnosis of a SQL claim, the
// round's answers).
func Message(res *racetest.Result) string {
	v := res.Verdict
	sql := isSQL(res)
	switch {
	case v.Status == racetest.Holds:
		return "idemtest: " + v.Sentence
	case v.Status == racetest.Broken && res.Calibration.Broken():
		return "idemtest: gate broken: " + v.Sentence + ": " + retryWords
	case v.Status == racetest.Broken:
		r := res.Round(v.WorstRound)
		if r == nil {
			return "idemtest: gate broken: " + v.Sentence
		}
		if r.Wins() > 1 {
			return brokenMessage(res, r, sql)
		}
		who := "request"
		if sql {
			who = "claim"
		}
		return fmt.Sprintf("idemtest: no %s won in round %d: %s\n  round %d: every %s was refused (%s)",
			who, r.Index, refusedWords, r.Index, who, roundEvidence(r))
	}
	sentence := strings.TrimPrefix(v.Sentence, "inconclusive: ")
	return "idemtest: inconclusive: " + strings.TrimSuffix(sentence, ".") + ". " + libraryCause(v.Cause)
}

// brokenMessage is "gate broken in X of Y rounds (round R: ...): cause",
// with the diagnosis of a SQL claim on the lines below.
func brokenMessage(res *racetest.Result, r *racetest.Round, sql bool) string {
	broken := 0
	for i := range res.Rounds {
		if res.Rounds[i].Wins() > 1 {
			broken++
		}
	}
	var what string
	switch {
	case sql:
		what = roundEvidence(r)
	case r.Effects != nil:
		what = fmt.Sprintf("%d requests performed the effect; effect count %d", r.Wins(), *r.Effects)
	default:
		what = fmt.Sprintf("%d requests performed the effect; %s", r.Wins(), roundEvidence(r))
	}
	msg := fmt.Sprintf("idemtest: gate broken in %d of %d rounds (round %d: %s): %s", broken, len(res.Rounds), r.Index, what, brokenWords)
	for _, d := range res.Diagnosis {
		msg += "\n  diagnosis: " + d
	}
	return msg
}

// roundEvidence is what decided the round: the responses' statuses for an
// HTTP race, the claims' answers for a SQL one.
func roundEvidence(r *racetest.Round) string {
	if r.Evidence != "" {
		return r.Evidence
	}
	if n := r.Count(racetest.Win); n > 0 {
		return fmt.Sprintf("%d claims returned a row", n)
	}
	answers := make([]string, len(r.Outcomes))
	for i, o := range r.Outcomes {
		answers[i] = answer(o)
	}
	return "answers " + strings.Join(answers, ", ")
}

// isSQL tells a SQL race's result from an HTTP one's.
func isSQL(res *racetest.Result) bool { return res.Method == "SQL" }
