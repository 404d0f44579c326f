package racetest

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/internal/humanize"
)

// Causes named by verdicts, in Verdict.Cause. Their wording is part of the
// interface (docs/race.md): a CI log line must tell the reader where to look. A
// caller that words causes its own way (a Go test library names its
// options, not flags) compares Cause with these.
const (
	// CauseBroken is an HTTP gate's; a SQL claim, which is its own
	// effect, gets CauseBrokenClaim.
	CauseBroken = "Usual causes: a read-then-write claim, an effect that runs before its claim, or a unique constraint that is " +
		"missing or has a nullable key part (run `idemcheck inspect` on the table)."
	CauseBrokenClaim = "Usual causes: a read-then-write claim, or a unique constraint that is " +
		"missing or has a nullable key part (run `idemcheck inspect` on the table)."
	CauseSequential = "Usual causes: no gate on this route, a gate that does not read this key, an effect that runs before its claim, " +
		"or a claim whose unique constraint is missing or has a nullable key part (run `idemcheck inspect` on the table)."
	CauseRefused = "Usual causes: a slot held by an earlier attempt (a failed attempt " +
		"must release its slot, never leave an \"error\" row in it), a key reused across rounds, " +
		"or a claim type or route that is not registered."
	CauseInconclusive = "Errors, timeouts and spreads wider than the race window say nothing " +
		"about the gate; fix the target or widen --window and run again."
	CauseSettle = "Settle it with an effect oracle that counts the effect per key " +
		"(--effect-sql, --effect-url or --effect-cmd), or a replay marker the server sets on " +
		"replays (--replay-header, default Idempotent-Replayed: true)."
	CauseEffectFirst = "Usual cause: the effect runs before the claim, and the claim's refusal comes after it " +
		"(a handler that charges, then inserts its key and answers 409 on the conflict). Only an effect oracle " +
		"can tell (--effect-sql, --effect-url or --effect-cmd)."
	CauseInFlight = "An answer that accepted the request for later (--in-flight, default 202) performed nothing yet; " +
		"count the effect with an oracle (--effect-sql, --effect-url or --effect-cmd), and give the work time to finish with --settle."
)

// AssumptionResponses is what a verdict that rests on responses alone
// assumes, in Verdict.Assumption; AssumptionInFlight when some answers
// accepted their request for later.
const (
	AssumptionResponses = "a refusal did no work; an effect that runs before the claim is invisible to responses: " +
		"add --effect-sql, --effect-url or --effect-cmd to prove it"
	AssumptionInFlight = "a refusal did no work, nor will a request accepted for later (in flight); an effect that runs before the claim, " +
		"or later, is invisible to responses: add --effect-sql, --effect-url or --effect-cmd to prove it"
)

// EvidenceKind is what a verdict rests on (Verdict.Evidence).
type EvidenceKind string

const (
	// EvidenceCount: an effect oracle counted the effect per key.
	EvidenceCount EvidenceKind = "effect count"
	// EvidenceMarker: the replay marker, declared or found by the
	// calibration, told replays from wins.
	EvidenceMarker EvidenceKind = "replay marker"
	// EvidenceResponses: statuses and bodies, read as the calibration
	// says this server answers.
	EvidenceResponses EvidenceKind = "responses"
	// EvidenceClaims: a SQL claim's own answer (a returned row), which is
	// the effect itself.
	EvidenceClaims EvidenceKind = "claim answers"
)

// Judge turns the rounds into a verdict, on evidence only. The
// calibration shows the gate broken on its own (two effects counted for
// one key retried in sequence, or an unmarked success to the retry under a
// declared marker), a round has more than one win, or a retry of a
// finished key (--same-key) won: the gate is broken. A round where every
// request was refused: the gate refused even the first claim. Errors,
// too-wide spreads, rounds of in-flight answers only, unresolved rounds,
// and, without an oracle, a calibration retry refused only after the work
// (RefusalAfterWork): inconclusive. Otherwise the gate held in every
// round, by the count or by its responses. cal is nil for SQL probes.
func Judge(rounds []Round, cal *Calibration) Verdict {
	v := judge(rounds, cal)
	v.Evidence = evidenceKind(rounds, cal, v)
	if v.Status == Holds && v.Evidence != EvidenceCount && v.Evidence != EvidenceClaims {
		v.Assumption = AssumptionResponses
		if countRounds(rounds, func(r *Round) bool { return r.Count(InFlight) > 0 }) > 0 {
			v.Assumption = AssumptionInFlight
		}
	}
	return v
}

func judge(rounds []Round, cal *Calibration) Verdict {
	if cal.Broken() {
		return calibrationBroken(cal)
	}
	if len(rounds) == 0 {
		return Verdict{Status: Inconclusive, Sentence: "no round completed", Cause: CauseInconclusive}
	}
	sql := isSQLRounds(rounds)
	if r := worstBroken(rounds); r != nil {
		if r.Retry && r.Wins() <= 1 {
			return Verdict{
				Status:     Broken,
				Sentence:   fmt.Sprintf("round %d retried the key round 1 had finished, and the effect ran again (%s)", r.Index, r.evidence()),
				Cause:      CauseSequential,
				Detail:     fmt.Sprintf("%d of %d retries of the finished key ran the effect again.", countRounds(rounds, isBroken), len(rounds)-1),
				WorstRound: r.Index,
			}
		}
		cause := CauseBroken
		if sql {
			cause = CauseBrokenClaim
		}
		return Verdict{
			Status:     Broken,
			Sentence:   fmt.Sprintf("%d wins in round %d (%s): the claim is a read-then-write or its unique index has a hole", r.Wins(), r.Index, r.evidence()),
			Cause:      cause,
			Detail:     fmt.Sprintf("%d of %d rounds had more than one win.", countRounds(rounds, isBroken), len(rounds)),
			WorstRound: r.Index,
		}
	}
	for i := range rounds {
		r := &rounds[i]
		if r.Retry {
			continue // a retry of a finished key is meant to be refused
		}
		if r.Wins() == 0 && r.Count(Refusal) == len(r.Outcomes) && r.Effects == nil {
			return refusedVerdict(r)
		}
		if r.Effects != nil && *r.Effects == 0 && r.Count(Error) == 0 && r.Count(Refusal) == len(r.Outcomes) {
			return refusedVerdict(r)
		}
	}
	undecided := func(r *Round) bool { return inconclusiveReason(r) != "" || r.Unresolved }
	for i := range rounds {
		r := &rounds[i]
		if reason := inconclusiveReason(r); reason != "" {
			cause := CauseInconclusive
			if r.Count(InFlight) > 0 && r.Count(Error) == 0 && !r.TooWide {
				cause = CauseInFlight
			}
			return Verdict{
				Status:     Inconclusive,
				Sentence:   fmt.Sprintf("round %d %s", r.Index, reason),
				Cause:      cause,
				Detail:     fmt.Sprintf("%d of %d rounds could not be judged.", countRounds(rounds, undecided), len(rounds)),
				WorstRound: r.Index,
			}
		}
	}
	if n := countRounds(rounds, func(r *Round) bool { return r.Unresolved }); n > 0 {
		first := firstRound(rounds, func(r *Round) bool { return r.Unresolved })
		return Verdict{
			Status: Inconclusive,
			Sentence: fmt.Sprintf("%d of %d rounds are unresolved; round %d had %s",
				n, len(rounds), first.Index, first.Evidence),
			Cause:      CauseSettle,
			WorstRound: first.Index,
		}
	}
	if cal.unresolved() {
		return Verdict{
			Status: Inconclusive,
			Sentence: fmt.Sprintf("every round had exactly one win, but the calibration retry is unresolved: it got %s, "+
				"so whether it ran the effect again cannot be told", cal.retryWords()),
			Cause: CauseSettle,
		}
	}
	if rounds[0].Effects == nil {
		if why := cal.refusedAfterWork(rounds); why != "" {
			return Verdict{
				Status:   Inconclusive,
				Sentence: fmt.Sprintf("every round had exactly one win by its responses, but %s", why),
				Cause:    CauseEffectFirst,
			}
		}
	}
	by := "the gate held"
	if rounds[0].Effects == nil && !sql {
		by = "the gate held by its responses"
	}
	held := fmt.Sprintf("exactly one win in each of %d rounds", len(rounds))
	if rounds[len(rounds)-1].Retry {
		held = fmt.Sprintf("exactly one win in round 1, and none in the %d retries of its finished key", len(rounds)-1)
	}
	return Verdict{
		Status:     Holds,
		Sentence:   fmt.Sprintf("%s: %s (%s)", by, held, holdsEvidence(rounds)),
		Detail:     losersDetail(rounds),
		Confidence: ConfidenceSentence(len(rounds)),
		WorstRound: widestRound(rounds),
	}
}

// isBroken is a round with more than one win, or a retry of a finished
// key that won at all.
func isBroken(r *Round) bool { return r.Wins() > 1 || r.Retry && r.Wins() > 0 }

// calibrationBroken is the verdict of a calibration that shows the gate
// broken on its own.
func calibrationBroken(cal *Calibration) Verdict {
	if cal.Effects != nil {
		return Verdict{
			Status: Broken,
			Sentence: fmt.Sprintf("the calibration retry ran the effect again: %s was %d for one key sent twice in sequence (%s)",
				cal.oracle, *cal.Effects, cal.Key),
			Cause: CauseSequential,
		}
	}
	return Verdict{
		Status: Broken,
		Sentence: fmt.Sprintf("the calibration retry ran the effect again: one key sent twice in sequence (%s) got two successes, "+
			"and the second was not marked with the declared replay marker %s (first %s, then %s)",
			cal.Key, cal.markerText(), ShowResponse(cal.first, cal.marker), ShowResponse(cal.retry, cal.marker)),
		Cause: CauseSequential,
	}
}

// evidenceKind is what the verdict v rests on: the count when an oracle
// counted, a SQL claim's answers, the replay marker when a marked replay
// or the marker's word (declared, or found by the calibration) told wins
// from replays, else the responses.
func evidenceKind(rounds []Round, cal *Calibration, v Verdict) EvidenceKind {
	switch {
	case cal != nil && cal.Effects != nil, len(rounds) > 0 && rounds[0].Effects != nil:
		return EvidenceCount
	case isSQLRounds(rounds):
		return EvidenceClaims
	case cal.Broken() && cal.Signature == SigUnmarked:
		return EvidenceMarker
	}
	byMarker := cal != nil && (cal.marker.Declared || cal.Signature == SigMarked)
	for i := range rounds {
		r := &rounds[i]
		if r.Count(Replay) > 0 && v.Status == Holds {
			return EvidenceMarker
		}
		if r.Index == v.WorstRound && byMarker && (r.Count(Win) > 1 || r.Retry && r.Count(Win) > 0) {
			return EvidenceMarker
		}
	}
	return EvidenceResponses
}

// isSQLRounds tells a SQL probe's rounds, whose claims answer with rows
// or SQLSTATEs, from an HTTP probe's.
func isSQLRounds(rounds []Round) bool {
	for i := range rounds {
		if rounds[i].StartSpread != nil {
			return true
		}
		for _, o := range rounds[i].Outcomes {
			if o.Answer != "" {
				return true
			}
		}
	}
	return false
}

// losersDetail says, for a run that held, how the requests that did not
// win answered when that was an error (a gate whose loser always gets a
// 500) rather than a refusal, a replay or an in-flight answer.
func losersDetail(rounds []Round) string {
	counts := map[string]int{}
	var order []string
	for i := range rounds {
		seen := map[string]bool{}
		for _, o := range rounds[i].Outcomes {
			if o.Kind != Error {
				continue
			}
			what := strconv.Itoa(o.Status)
			if o.Status == 0 {
				what = o.Err
			}
			if seen[what] {
				continue
			}
			seen[what] = true
			if counts[what] == 0 {
				order = append(order, what)
			}
			counts[what]++
		}
	}
	if len(order) == 0 {
		return ""
	}
	sort.Strings(order)
	parts := make([]string, len(order))
	for i, w := range order {
		parts[i] = fmt.Sprintf("%s in %d of %d rounds", w, counts[w], len(rounds))
	}
	return "The requests that did not win got " + strings.Join(parts, ", ") +
		": not a refusal, so a client sees that answer where it should see the refusal or the winner's result."
}

// evidence is what decided the round, or the claims' own answers for a
// SQL round, which need no interpretation.
func (r *Round) evidence() string {
	if r.Evidence != "" {
		return r.Evidence
	}
	return fmt.Sprintf("%s returned a row", humanize.Count(r.Count(Win), "claim", "claims"))
}

// holdsEvidence says what showed one win per round across a holding run.
func holdsEvidence(rounds []Round) string {
	inFlight := 0
	for i := range rounds {
		inFlight += rounds[i].Count(InFlight)
	}
	if rounds[0].Effects != nil && rounds[0].Evidence != "" {
		oracle, _, _ := strings.Cut(rounds[0].Evidence, " was ")
		if rounds[len(rounds)-1].Retry {
			return oracle + " was 1 in round 1 and 0 in every retry"
		}
		return oracle + " was 1 in every round"
	}
	if rounds[0].StartSpread != nil {
		return "one claim returned a row in every round"
	}
	replays, refusals := 0, 0
	for i := range rounds {
		replays += rounds[i].Count(Replay)
		refusals += rounds[i].Count(Refusal)
	}
	switch {
	case inFlight > 0:
		return "one success in every round; the others were refused, marked as replays or accepted for later"
	case replays > 0 && refusals > 0:
		return "one success in every round; the others were refused or marked as replays"
	case replays > 0:
		return "one unmarked success in every round; the others were marked as replays"
	}
	return "one success in every round; the others were refused"
}

func firstRound(rounds []Round, pred func(*Round) bool) *Round {
	for i := range rounds {
		if pred(&rounds[i]) {
			return &rounds[i]
		}
	}
	return nil
}

func refusedVerdict(r *Round) Verdict {
	return Verdict{
		Status:     Broken,
		Sentence:   fmt.Sprintf("no win in round %d (%s): every request was refused, the gate refused even the first claim", r.Index, r.evidence()),
		Cause:      CauseRefused,
		WorstRound: r.Index,
	}
}

func countRounds(rounds []Round, pred func(*Round) bool) int {
	n := 0
	for i := range rounds {
		if pred(&rounds[i]) {
			n++
		}
	}
	return n
}

// worstBroken is the round with the most wins, if any round has more than
// one (or is a retry of a finished key that won).
func worstBroken(rounds []Round) *Round {
	var worst *Round
	for i := range rounds {
		r := &rounds[i]
		if isBroken(r) && (worst == nil || r.Wins() > worst.Wins()) {
			worst = r
		}
	}
	return worst
}

// inconclusiveReason says why a round cannot be judged, or "" when it can.
// A counted effect of exactly one settles the round even when some
// responses were errors.
func inconclusiveReason(r *Round) string {
	if r.TooWide {
		return fmt.Sprintf("spread %s exceeds the race window", fmtDuration(r.Spread()))
	}
	if r.Effects != nil && *r.Effects == 1 {
		return ""
	}
	if errs := r.Count(Error); errs > 0 {
		return fmt.Sprintf("had %d error(s) (%s)", errs, errorSummary(r))
	}
	if r.Wins() == 0 && !r.Retry {
		switch {
		case r.Count(InFlight) > 0 && r.Effects != nil:
			return fmt.Sprintf("had no win: %s, and %s --settle after the last answer, so the accepted work had not run yet",
				statusList(r, InFlight), r.Evidence)
		case r.Count(InFlight) > 0:
			return fmt.Sprintf("had no win: %s, which performed nothing yet, so only an effect oracle can tell whether the work ran once", orNothing(responsesEvidence(r)))
		}
		return "had no win and not every request was refused"
	}
	return ""
}

func errorSummary(r *Round) string {
	seen := map[string]bool{}
	var parts []string
	for _, o := range r.Outcomes {
		if o.Kind != Error {
			continue
		}
		s := o.Err
		if s == "" {
			s = strconv.Itoa(o.Status)
		}
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// Spread is the spread the race window judges: the SQL start spread or
// the arrival spread when known, else the release spread.
func (r *Round) Spread() time.Duration {
	if r.StartSpread != nil {
		return *r.StartSpread
	}
	if r.ArrivalSpread != nil {
		return *r.ArrivalSpread
	}
	return r.ReleaseSpread
}

func widestRound(rounds []Round) int {
	best := 0
	var widest time.Duration = -1
	for _, r := range rounds {
		if s := r.Spread(); s > widest {
			widest, best = s, r.Index
		}
	}
	return best
}

// ConfidenceSentence says how likely it is that the given number of rounds
// all missed a broken gate (docs/race.md): the smallest per-round catch
// probability p, in hundredths, for which (1-p)^rounds is under 5%.
func ConfidenceSentence(rounds int) string {
	if rounds <= 0 {
		return ""
	}
	p := 1 - math.Pow(0.05, 1/float64(rounds))
	hundredths := math.Ceil(p*100 - 1e-9)
	return fmt.Sprintf("If one round exposes a broken gate with probability p, %d rounds all miss it "+
		"with probability (1-p)^%d, under 5%% for p >= %s.", rounds, rounds, strconv.FormatFloat(hundredths/100, 'f', -1, 64))
}
