// Package racetest fires identical requests at a running system at the same
// moment, round after round, classifies what came back and judges whether
// the idempotency gate held. It owns synchronisation (HTTP/1.1 withheld
// tail, HTTP/2 single packet), classification, effect counting and verdicts.
//
// It never prints and never exits: a probe returns a Result, and the
// formatter in this package writes it to the io.Writer its caller gives.
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
	// Arrival is when the server says the request arrived, from
	// Server-Timing, relative to an arbitrary server clock.
	Arrival *time.Duration `json:"arrival_ns,omitempty"`
	// Answer is what a SQL claim answered: "1 row", "no row" or the
	// SQLSTATE of its error; HTTP probes leave it empty.
	Answer string `json:"answer,omitempty"`
	body   []byte
}

// Round is one burst of N identical requests sharing one key.
type Round struct {
	Index    int    `json:"round"`
	Key      string `json:"key"`
	values   RoundValues
	Outcomes []Outcome `json:"outcomes"`
	// ReleaseSpread is the time between the first and the last release
	// write of the round, measured at the client.
	ReleaseSpread time.Duration `json:"release_spread_ns"`
	// ArrivalSpread is the server-side spread of arrival when the target
	// exposes it (Server-Timing); nil when it does not.
	ArrivalSpread *time.Duration `json:"arrival_spread_ns,omitempty"`
	// StartSpread is, for SQL probes, the spread of the workers' start
	// after the barrier, on the server's clock (clock_timestamp()).
	StartSpread *time.Duration `json:"start_spread_ns,omitempty"`
	// Effects is the side-effect count from --effect-sql; when set it
	// overrides what the responses claim.
	Effects *int `json:"effects,omitempty"`
	// TooWide is set when the spread exceeded the configured window.
	TooWide bool `json:"too_wide,omitempty"`
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
}

// Result is everything a probe run produced.
type Result struct {
	Target   string        `json:"target"`
	Method   string        `json:"method,omitempty"`
	N        int           `json:"n"`
	Sync     string        `json:"sync"`
	Split    string        `json:"split,omitempty"`
	Window   time.Duration `json:"window_ns,omitempty"`
	Rounds   []Round       `json:"rounds"`
	Verdict  Verdict       `json:"verdict"`
	Warnings []string      `json:"warnings,omitempty"`
	// Conformance holds the sequential checks when they were asked for.
	Conformance []Check `json:"conformance,omitempty"`
	// Diagnosis names, for a broken SQL claim, the unique index that should
	// have refused and why it did not.
	Diagnosis []string `json:"diagnosis,omitempty"`
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

// Check is one conformance probe's result.
type Check struct {
	Name   string `json:"name"`
	Pass   bool   `json:"pass"`
	Sent   string `json:"sent"`
	Got    string `json:"got"`
	Detail string `json:"detail,omitempty"`
}

// ConformanceFailures counts the conformance checks that failed.
func (r *Result) ConformanceFailures() int {
	n := 0
	for _, c := range r.Conformance {
		if !c.Pass {
			n++
		}
	}
	return n
}
