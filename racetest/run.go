package racetest

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Limits above which a run needs Force (safety: a probe must not turn into
// a load test by a typo).
const (
	MaxN      = 256
	MaxRounds = 10000
)

// CheckLimits rejects a number of requests per round or of rounds that
// cannot run, or that needs Force. Every probe checks these first.
func CheckLimits(n, rounds int, force bool) error {
	if n < 2 {
		return fmt.Errorf("-n %d: a race needs at least 2 requests", n)
	}
	if rounds < 1 {
		return fmt.Errorf("--rounds %d: need at least 1 round", rounds)
	}
	if n > MaxN && !force {
		return fmt.Errorf("-n %d is above %d; add --force if you mean it", n, MaxN)
	}
	if rounds > MaxRounds && !force {
		return fmt.Errorf("--rounds %d is above %d; add --force if you mean it", rounds, MaxRounds)
	}
	return nil
}

// ErrNoConnection wraps failures to reach the target before any round ran:
// the caller reports them as "could not run", not as a verdict.
var ErrNoConnection = errors.New("no connection")

// ErrDeadline wraps the failure of a round that the run's deadline cut
// short: RunRounds records nothing of it and says the run stopped early.
var ErrDeadline = errors.New("the run deadline passed")

// StopError ends a run without a verdict of its own: the target stopped
// answering (no request of a round, or of the calibration, got an answer
// within the timeout) or an effect oracle failed or stopped answering. It
// names the phase and how long the probe waited before it gave up. The
// caller reports it as an error (exit 2), never as inconclusive: nothing
// about the gate was learnt.
type StopError struct {
	// Phase is what was waited for: "the --effect-url count after round 3",
	// "round 2", "the calibration retry".
	Phase string
	// Elapsed is how long the phase ran before it failed.
	Elapsed time.Duration
	Err     error
}

func (e *StopError) Error() string {
	return fmt.Sprintf("%s: %v (after %s)", e.Phase, e.Err, fmtDuration(e.Elapsed))
}

func (e *StopError) Unwrap() error { return e.Err }

// A Prober fires the rounds of one kind of probe (HTTP, SQL). RunRounds
// drives it; the prober owns its connections and what it learnt before the
// first round.
type Prober interface {
	// Round fires round i (from 1) and returns what came back, resolved
	// on the evidence the prober has, with warnings for the result. An
	// error means the round failed as a whole: nothing in it can be judged.
	Round(ctx context.Context, i int) (Round, []string, error)
}

// RunRounds is the rounds loop every probe shares. It fires rounds 1 to
// rounds of p into res until ctx ends (the run's deadline, given for the
// warning), then judges them. It returns an error when the first round
// failed (the probe could not run at all), and when a later one stopped
// with a StopError and no earlier round already showed the gate broken. A
// later round that fails as a whole otherwise ends the run with that round
// recorded as errors, so the run is inconclusive unless an earlier round
// already broke. A run the deadline ends early says so
// (Result.StoppedEarly and a warning); a round it cut short (ErrDeadline)
// is left out.
//
// progress, when not nil, is told of each round recorded (its Round); the
// probe calls its Start.
func RunRounds(ctx context.Context, p Prober, res *Result, rounds int, deadline time.Duration, progress Progress) error {
	if progress == nil {
		progress = noProgress{}
	}
	stop := func(done int) {
		res.StoppedEarly, res.Planned = true, rounds
		res.Warnings = append(res.Warnings, fmt.Sprintf("the run deadline (%s) passed after %d of %d rounds: the run stopped early, and the verdict rests on those %d", deadline, done, rounds, done))
	}
	for i := 1; i <= rounds; i++ {
		if ctx.Err() != nil {
			stop(i - 1)
			break
		}
		round, warn, err := p.Round(ctx, i)
		if errors.Is(err, ErrDeadline) {
			if i == 1 {
				return err
			}
			stop(i - 1)
			break
		}
		if err != nil {
			if i == 1 {
				return err
			}
			res.Rounds = append(res.Rounds, failedRound(i, res.N, err))
			progress.Round(&res.Rounds[len(res.Rounds)-1])
			var halt *StopError
			if errors.As(err, &halt) {
				// A broken round already seen stays the verdict; the
				// failure is said beside it.
				if v := Judge(res.Rounds, res.Calibration); v.Status != Broken {
					return err
				}
				res.Warnings = append(res.Warnings, fmt.Sprintf("the run stopped after round %d: %v", i-1, err))
			}
			break
		}
		res.Warnings = appendOnce(res.Warnings, warn...)
		res.Rounds = append(res.Rounds, round)
		progress.Round(&res.Rounds[len(res.Rounds)-1])
	}
	res.Verdict = Judge(res.Rounds, res.Calibration)
	return nil
}

// Progress is told how a run goes while it runs, for a live display. Both
// methods are called on the goroutine that runs the rounds, and must not
// keep what they are handed past their return: the rounds are not final
// (a recount may change a round's count once the rounds end).
type Progress interface {
	// Start is called once by the probe, as soon as everything the header
	// line states (WriteTextHeader) is known: for race http once the sync
	// is chosen, before the calibration; for race sql once the sessions
	// are open. rounds is how many are planned.
	Start(res *Result, rounds int)
	// Round is called after each round is recorded, a round that failed
	// as a whole included.
	Round(r *Round)
}

type noProgress struct{}

func (noProgress) Start(*Result, int) {}
func (noProgress) Round(*Round)       {}

// SpreadOf is the time between the earliest and the latest of ts: the
// spread of a round's releases or starts.
func SpreadOf(ts []time.Time) time.Duration {
	var lo, hi time.Time
	for i, t := range ts {
		if i == 0 || t.Before(lo) {
			lo = t
		}
		if i == 0 || t.After(hi) {
			hi = t
		}
	}
	return hi.Sub(lo)
}

// failedRound is a round in which no request could be judged.
func failedRound(i, n int, err error) Round {
	r := Round{Index: i}
	for k := range n {
		r.Outcomes = append(r.Outcomes, Outcome{Request: k + 1, Kind: Error, Err: err.Error()})
	}
	return r
}

func appendOnce(list []string, more ...string) []string {
	for _, m := range more {
		dup := false
		for _, l := range list {
			dup = dup || l == m
		}
		if !dup {
			list = append(list, m)
		}
	}
	return list
}
