package racetest

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Causes named by verdicts, in Verdict.Cause. Their wording is part of the
// interface (docs/race.md): a CI log line must tell the reader where to look. A
// caller that words causes its own way (a Go test library names its
// options, not flags) compares Cause with these.
const (
	CauseBroken = "Usual causes: a read-then-write claim, or a unique constraint that is " +
		"missing or has a nullable key part (run `idemcheck inspect` on the table)."
	CauseSequential = "Usual causes: no gate on this route, a gate that does not read this key, " +
		"or a claim whose unique constraint is missing or has a nullable key part (run `idemcheck inspect` on the table)."
	CauseRefused = "Usual causes: a slot held by an earlier attempt (a failed attempt " +
		"must release its slot, never leave an \"error\" row in it), a key reused across rounds, " +
		"or a claim type or route that is not registered."
	CauseInconclusive = "Errors, timeouts and spreads wider than the race window say nothing " +
		"about the gate; fix the target or widen --window and run again."
	CauseSettle = "Settle it with an effect oracle that counts the effect per key " +
		"(--effect-sql, --effect-url or --effect-cmd), or a replay marker the server sets on " +
		"replays (--replay-header, default Idempotent-Replayed: true)."
)

// Judge turns the rounds into a verdict, on evidence only. The
// calibration counted two effects for one key retried in sequence, or a
// round has more than one win: the gate is broken. A round where every
// request was refused: the gate refused even the first claim. Errors,
// too-wide spreads and unresolved rounds: inconclusive. Otherwise the gate
// held in every round. cal is nil for SQL probes.
func Judge(rounds []Round, cal *Calibration) Verdict {
	if cal.Broken() {
		return Verdict{
			Status: Broken,
			Sentence: fmt.Sprintf("the calibration retry ran the effect again: %s was %d for one key sent twice in sequence (%s)",
				cal.oracle, *cal.Effects, cal.Key),
			Cause: CauseSequential,
		}
	}
	if len(rounds) == 0 {
		return Verdict{Status: Inconclusive, Sentence: "no round completed", Cause: CauseInconclusive}
	}
	if r := worstBroken(rounds); r != nil {
		return Verdict{
			Status:     Broken,
			Sentence:   fmt.Sprintf("%d wins in round %d (%s): the claim is a read-then-write or its unique index has a hole", r.Wins(), r.Index, r.evidence()),
			Cause:      CauseBroken,
			Detail:     fmt.Sprintf("%d of %d rounds had more than one win.", countRounds(rounds, func(r *Round) bool { return r.Wins() > 1 }), len(rounds)),
			WorstRound: r.Index,
		}
	}
	for i := range rounds {
		r := &rounds[i]
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
			return Verdict{
				Status:     Inconclusive,
				Sentence:   fmt.Sprintf("inconclusive: round %d %s", r.Index, reason),
				Cause:      CauseInconclusive,
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
	return Verdict{
		Status:     Holds,
		Sentence:   fmt.Sprintf("the gate held: exactly one win in each of %d rounds (%s)", len(rounds), holdsEvidence(rounds)),
		Confidence: ConfidenceSentence(len(rounds)),
		WorstRound: widestRound(rounds),
	}
}

// evidence is what decided the round, or the claims' own answers for a
// SQL round, which need no interpretation.
func (r *Round) evidence() string {
	if r.Evidence != "" {
		return r.Evidence
	}
	return fmt.Sprintf("%s returned a row", plural(r.Count(Win), "claim"))
}

// holdsEvidence says what showed one win per round across a holding run.
func holdsEvidence(rounds []Round) string {
	if rounds[0].Effects != nil && rounds[0].Evidence != "" {
		oracle, _, _ := strings.Cut(rounds[0].Evidence, " was ")
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
// one.
func worstBroken(rounds []Round) *Round {
	var worst *Round
	for i := range rounds {
		r := &rounds[i]
		if r.Wins() > 1 && (worst == nil || r.Wins() > worst.Wins()) {
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
	if r.Wins() == 0 {
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
