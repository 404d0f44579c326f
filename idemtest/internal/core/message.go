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
	effectFirstAdvice = "Usual cause: the effect runs before the claim, and the claim's refusal comes after it " +
		"(a handler that charges, then inserts its key and answers 409 on the conflict). Only an effect counter " +
		"can tell (idemtest.CountEffects)."
	inFlightAdvice = "An answer that accepted the request for later (idemtest.InFlight, default 202) performed nothing yet; " +
		"count the effect with idemtest.CountEffects."
	// libraryAssumption is racetest.AssumptionResponses in the options'
	// names, libraryInFlight racetest.AssumptionInFlight.
	libraryAssumption = "a refusal did no work; an effect that runs before the claim is invisible to responses: " +
		"add idemtest.CountEffects to prove it"
	libraryInFlight = "a refusal did no work, nor will a request accepted for later (in flight); an effect that runs before the claim, " +
		"or later, is invisible to responses: add idemtest.CountEffects to prove it"
)

// libraryAssumptionOf is the assumption of a verdict in the options' names.
func libraryAssumptionOf(a string) string {
	if a == racetest.AssumptionInFlight {
		return libraryInFlight
	}
	return libraryAssumption
}

// libraryCause is the cause line of the report in the options' names.
func libraryCause(cause string) string {
	switch cause {
	case racetest.CauseInconclusive:
		return inconclusiveAdvice
	case racetest.CauseSettle:
		return settleAdvice
	case racetest.CauseEffectFirst:
		return effectFirstAdvice
	case racetest.CauseInFlight:
		return inFlightAdvice
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
	case v.Status == racetest.Holds && v.Assumption != "":
		return "idemtest: " + v.Sentence + "; assumed: " + v.Assumption
	case v.Status == racetest.Holds:
		return "idemtest: " + v.Sentence
	case v.Status == racetest.Broken && res.Calibration.Broken():
		return "idemtest: gate broken: " + libraryMarkerWords(v.Sentence) + ": " + retryWords
	case v.Status == racetest.Broken:
		r := res.Round(v.WorstRound)
		if r == nil {
			return "idemtest: gate broken: " + v.Sentence
		}
		if r.Wins() > 1 || r.Retry {
			return brokenMessage(res, r, sql)
		}
		who := "request"
		if sql {
			who = "claim"
		}
		return fmt.Sprintf("idemtest: no %s won in round %d: %s\n  round %d: every %s was refused (%s)",
			who, r.Index, refusedWords, r.Index, who, roundEvidence(r))
	}
	return "idemtest: inconclusive: " + strings.TrimSuffix(v.Sentence, ".") + ". " + libraryCause(v.Cause)
}

// brokenMessage is "gate broken in X of Y rounds (round R: ...): cause",
// with the diagnosis of a SQL claim on the lines below.
func brokenMessage(res *racetest.Result, r *racetest.Round, sql bool) string {
	broken := 0
	for i := range res.Rounds {
		if r := &res.Rounds[i]; r.Wins() > 1 || r.Retry && r.Wins() > 0 {
			broken++
		}
	}
	// "performed the effect" only when a count or a marker says so; by
	// the responses alone it is what they showed.
	var what string
	switch {
	case sql:
		what = roundEvidence(r)
	case r.Effects != nil:
		what = fmt.Sprintf("%d requests performed the effect; effect count %d", r.Wins(), *r.Effects)
	case res.Verdict.Evidence == racetest.EvidenceMarker:
		what = fmt.Sprintf("%d requests performed the effect by the replay marker; %s", r.Wins(), roundEvidence(r))
	default:
		what = fmt.Sprintf("%d requests won by their responses; %s", r.Wins(), roundEvidence(r))
	}
	words := brokenWords
	if r.Retry {
		words = "a retry of the key round 1 had finished ran the effect again: " + retryWords
	}
	msg := fmt.Sprintf("idemtest: gate broken in %d of %d rounds (round %d: %s): %s", broken, len(res.Rounds), r.Index, what, words)
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

// libraryMarkerWords names the option where a sentence names the flag.
func libraryMarkerWords(s string) string {
	return strings.ReplaceAll(s, "--replay-header", "idemtest.ReplayHeader")
}
