package racetest

import "time"

// OutcomeKind is what one request of a round turned out to be.
type OutcomeKind string

const (
	// Win means the request performed the effect.
	Win OutcomeKind = "win"
	// Refusal means the gate turned the request away (409, 425, ...).
	Refusal OutcomeKind = "refusal"
	// Replay means the server answered with the winner's response again.
	Replay OutcomeKind = "replay"
	// Undecided is a success that cannot be told from a replay: it has the
	// bytes of an earlier success of its round, carries no replay marker,
	// and no effect oracle counted the round (docs/race.md, "What counts as evidence").
	Undecided OutcomeKind = "win-or-replay"
	// InFlight is an answer that accepted the request for later (202 by
	// default): it performed nothing yet, and may still.
	InFlight OutcomeKind = "in-flight"
	// Error is a 5xx, a timeout or a reset: nothing can be said about it.
	Error OutcomeKind = "error"
	// Serialization is a database serialization failure (SQLSTATE 40001),
	// which SQL probes see instead of a refusal.
	Serialization OutcomeKind = "serialization"
)

// Outcome is one request's result.
type Outcome struct {
	Request  int           `json:"request"`
	Kind     OutcomeKind   `json:"kind"`
	Status   int           `json:"status,omitempty"`
	Err      string        `json:"error,omitempty"`
	Replayed bool          `json:"replayed,omitempty"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	// Released is when the request's release write ended, after the
	// round's first one (Round.Start); the timeline draws it.
	Released time.Duration `json:"-"`
	// Arrival is when the server says the request arrived, from
	// Server-Timing, relative to an arbitrary server clock.
	Arrival *time.Duration `json:"arrival_ns,omitempty"`
	// Answer is what a SQL claim answered: "1 row", "no row" or the
	// SQLSTATE of its error; HTTP probes leave it empty.
	Answer string `json:"answer,omitempty"`
	// Body is the response body, kept to tell replays from wins; it is
	// never shown whole.
	Body []byte `json:"-"`
}

// Round is one burst of N identical requests sharing one key.
type Round struct {
	Index int    `json:"round"`
	Key   string `json:"key"`
	// Values are what the round's templates rendered to, so that the
	// round's request can be sent again (the conformance retry).
	Values   RoundValues `json:"-"`
	Outcomes []Outcome   `json:"outcomes"`
	// ReleaseSpread is the time between the first and the last release
	// write of the round, measured at the client.
	ReleaseSpread time.Duration `json:"release_spread_ns"`
	// Start is when the round's first release write ended, on the
	// client's wall clock; zero for SQL probes.
	Start time.Time `json:"-"`
	// ArrivalSpread is the server-side spread of arrival when the target
	// exposes it (Server-Timing); nil when it does not.
	ArrivalSpread *time.Duration `json:"arrival_spread_ns,omitempty"`
	// StartSpread is, for SQL probes, the spread of the workers' start
	// after the barrier, on the server's clock (clock_timestamp()).
	StartSpread *time.Duration `json:"start_spread_ns,omitempty"`
	// Effects is the side-effect count from the effect oracle; when set it
	// decides the round, whatever the responses claim.
	Effects *int `json:"effects,omitempty"`
	// Evidence says what decided the round's number of wins, in words
	// ("the PostgreSQL count was 2", "two 201s with different bodies").
	Evidence string `json:"evidence,omitempty"`
	// Unresolved is set when the round had two or more identical
	// successes, no oracle counted it and nothing tells a replay from a
	// win: the round cannot be judged.
	Unresolved bool `json:"unresolved,omitempty"`
	// Disagreement is set when the oracle's count contradicts what the
	// responses show; the count decided.
	Disagreement string `json:"disagreement,omitempty"`
	// TooWide is set when the spread exceeded the configured window.
	TooWide bool `json:"too_wide,omitempty"`
	// Retry is set for the rounds after the first of a --same-key run:
	// they send the key round 1 raced again, after it finished, so any
	// win in them ran the effect again.
	Retry bool `json:"retry,omitempty"`
}

// Count returns how many outcomes of the round have kind k.
func (r *Round) Count(k OutcomeKind) int {
	n := 0
	for _, o := range r.Outcomes {
		if o.Kind == k {
			n++
		}
	}
	return n
}

// Wins is the number of requests that performed the effect: the counted
// effect when there is one, else the responses that claim a win.
func (r *Round) Wins() int {
	if r.Effects != nil {
		return *r.Effects
	}
	return r.Count(Win)
}

// Status is the overall judgement of a run.
type Status string

const (
	Holds        Status = "holds"
	Broken       Status = "broken"
	Inconclusive Status = "inconclusive"
)

// Verdict is the judgement with the sentence a person reads and the round
// that best shows it (0 when no round stands out).
type Verdict struct {
	Status   Status `json:"status"`
	Sentence string `json:"sentence"`
	Cause    string `json:"cause,omitempty"`
	// Detail says how many rounds showed what the sentence says.
	Detail     string `json:"detail,omitempty"`
	Confidence string `json:"confidence,omitempty"`
	WorstRound int    `json:"worst_round,omitempty"`
	// Evidence is what the verdict rests on: "effect count", "replay
	// marker", "responses", or "claim answers" for a SQL claim.
	Evidence EvidenceKind `json:"evidence,omitempty"`
	// Assumption is what a verdict that rests on responses takes for
	// granted (AssumptionResponses).
	Assumption string `json:"assumption,omitempty"`
}

// Result is everything a probe run produced.
type Result struct {
	Target string `json:"target"`
	Method string `json:"method,omitempty"`
	N      int    `json:"n"`
	Sync   string `json:"sync"`
	// SyncReason says, when --sync auto chose the mode, which it chose and
	// why (docs/race-sync.md).
	SyncReason string        `json:"sync_reason,omitempty"`
	Split      string        `json:"split,omitempty"`
	Window     time.Duration `json:"window_ns,omitempty"`
	Rounds     []Round       `json:"rounds"`
	Verdict    Verdict       `json:"verdict"`
	Warnings   []string      `json:"warnings,omitempty"`
	// Oracle names the effect oracle that counted each round, if any.
	Oracle string `json:"oracle,omitempty"`
	// Marker is the replay marker the user declared ("Name: value"), if
	// any: evidence of its own.
	Marker string `json:"replay_marker,omitempty"`
	// SameKey is set when every round sent one key (--same-key): round 1
	// raced it, the later rounds retried it after it finished.
	SameKey bool `json:"same_key,omitempty"`
	// Calibration is what the server did with a finished key, probed once
	// before the first round; nil for SQL probes.
	Calibration *Calibration `json:"calibration,omitempty"`
	// Notes are facts about the run a person may want to check (the
	// Content-Type chosen for the body); text output shows them with -v.
	Notes []string `json:"notes,omitempty"`
	// Conformance holds the sequential checks when they were asked for.
	Conformance []Check `json:"conformance,omitempty"`
	// Diagnosis names, for a broken SQL claim, the unique index that should
	// have refused and why it did not.
	Diagnosis []string `json:"diagnosis,omitempty"`
	// StoppedEarly is set when the run's deadline ended it before its
	// rounds were all fired; Planned is how many were asked for.
	StoppedEarly bool `json:"stopped_early,omitempty"`
	Planned      int  `json:"planned_rounds,omitempty"`
}

// Round returns the round with index i, or nil.
func (r *Result) Round(i int) *Round {
	for k := range r.Rounds {
		if r.Rounds[k].Index == i {
			return &r.Rounds[k]
		}
	}
	return nil
}

// CheckResult is how one conformance check ended.
type CheckResult string

const (
	CheckPass    CheckResult = "pass"
	CheckFail    CheckResult = "fail"
	CheckSkipped CheckResult = "skipped"
)

// Check is one conformance probe's result.
type Check struct {
	Name   string      `json:"name"`
	Result CheckResult `json:"result"`
	Sent   string      `json:"sent"`
	Got    string      `json:"got"`
	Detail string      `json:"detail,omitempty"`
}

// ConformanceCount counts the conformance checks that ended with cr.
func (r *Result) ConformanceCount(cr CheckResult) int {
	n := 0
	for _, c := range r.Conformance {
		if c.Result == cr {
			n++
		}
	}
	return n
}

// ConformanceFailures counts the conformance checks that failed.
func (r *Result) ConformanceFailures() int { return r.ConformanceCount(CheckFail) }

// Overall folds the conformance checks into the verdict: a failed check
// fails the run as a broken gate does (exit 1), whatever the race said; a
// skipped check changes nothing.
func (r *Result) Overall() Status {
	if r.Verdict.Status == Broken || r.ConformanceFailures() > 0 {
		return Broken
	}
	return r.Verdict.Status
}
