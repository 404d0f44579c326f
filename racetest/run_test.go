package racetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// scripted is a Prober whose rounds are given in advance: one holding
// round unless the script says otherwise. It cancels the run after round
// cancelAfter, as a deadline would.
type scripted struct {
	broken      map[int]bool
	fail        map[int]error
	cancelAfter int
	cancel      context.CancelFunc
	fired       int
}

func (s *scripted) Round(_ context.Context, i int) (Round, []string, error) {
	s.fired++
	if i == s.cancelAfter {
		s.cancel()
	}
	if err := s.fail[i]; err != nil {
		return Round{}, []string{"a warning of the failed round"}, err
	}
	r := Round{Index: i, Outcomes: []Outcome{{Request: 1, Kind: Win, Status: 201}, {Request: 2, Kind: Refusal, Status: 409}}}
	if s.broken[i] {
		r.Outcomes[1] = Outcome{Request: 2, Kind: Win, Status: 201}
	}
	return r, []string{"the same warning every round"}, nil
}

func runScript(t *testing.T, s *scripted, rounds int) (*Result, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.cancel = cancel
	res := &Result{N: 2}
	return res, RunRounds(ctx, s, res, rounds, 3*time.Second, nil)
}

func TestRunRoundsFirstRoundFailureIsNoRun(t *testing.T) {
	s := &scripted{fail: map[int]error{1: ErrNoConnection}}
	if _, err := runScript(t, s, 5); !errors.Is(err, ErrNoConnection) {
		t.Fatalf("err %v, want the first round's error: the probe could not run", err)
	}
	if s.fired != 1 {
		t.Errorf("%d rounds fired after the first failed, want none", s.fired-1)
	}
}

func TestRunRoundsLaterFailureEndsTheRunInconclusive(t *testing.T) {
	s := &scripted{fail: map[int]error{3: errors.New("connection refused")}}
	res, err := runScript(t, s, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rounds) != 3 || s.fired != 3 {
		t.Fatalf("%d rounds recorded, %d fired; want 3 and 3 (the run ends at the failed round)", len(res.Rounds), s.fired)
	}
	if got := res.Rounds[2].Count(Error); got != 2 {
		t.Errorf("the failed round has %d errors, want one per request (2)", got)
	}
	if res.Verdict.Status != Inconclusive || !strings.Contains(res.Verdict.Sentence, "round 3 had 2 error(s) (connection refused)") {
		t.Errorf("verdict %+v, want inconclusive naming round 3's error", res.Verdict)
	}
	if len(res.Warnings) != 1 || res.Warnings[0] != "the same warning every round" {
		t.Errorf("warnings %q, want the repeated one once and none from the failed round", res.Warnings)
	}
}

func TestRunRoundsBrokenRoundOutranksALaterFailure(t *testing.T) {
	s := &scripted{broken: map[int]bool{2: true}, fail: map[int]error{3: errors.New("reset")}}
	res, err := runScript(t, s, 5)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict.Status != Broken || res.Verdict.WorstRound != 2 {
		t.Errorf("verdict %+v, want broken by round 2", res.Verdict)
	}
}

func TestRunRoundsStopsAtTheDeadline(t *testing.T) {
	s := &scripted{cancelAfter: 2}
	res, err := runScript(t, s, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rounds) != 2 {
		t.Fatalf("%d rounds, want the 2 before the deadline", len(res.Rounds))
	}
	want := "the run deadline (3s) passed after 2 of 5 rounds: the run stopped early, and the verdict rests on those 2"
	if res.Warnings[len(res.Warnings)-1] != want {
		t.Errorf("warnings %q, want %q last", res.Warnings, want)
	}
	if !res.StoppedEarly || res.Planned != 5 {
		t.Errorf("stopped early %v, planned %d; want true and 5", res.StoppedEarly, res.Planned)
	}
	if res.Verdict.Status != Holds {
		t.Errorf("verdict %+v, want holds on the rounds that ran", res.Verdict)
	}
}

// A later round that stopped (the target or the oracle stopped answering)
// ends the run with that error, not with an inconclusive verdict; a broken
// round before it stays the verdict, with the stop as a warning.
func TestRunRoundsLaterStopIsAnError(t *testing.T) {
	stop := &StopError{Phase: "the --effect-url count after round 3", Elapsed: 2 * time.Second, Err: errors.New("no answer within --timeout 2s")}
	s := &scripted{fail: map[int]error{3: stop}}
	if _, err := runScript(t, s, 5); !errors.Is(err, stop) {
		t.Fatalf("err %v, want the stop error", err)
	}
	if got := stop.Error(); got != "the --effect-url count after round 3: no answer within --timeout 2s (after 2s)" {
		t.Errorf("the stop error reads %q", got)
	}
	s = &scripted{broken: map[int]bool{2: true}, fail: map[int]error{3: stop}}
	res, err := runScript(t, s, 5)
	if err != nil || res.Verdict.Status != Broken {
		t.Fatalf("err %v, verdict %+v: want broken by round 2", err, res)
	}
	if w := res.Warnings[len(res.Warnings)-1]; !strings.Contains(w, "the run stopped after round 2: the --effect-url count after round 3") {
		t.Errorf("warnings %q lack the stop", res.Warnings)
	}
}

// A round the deadline cut short (ErrDeadline) is left out, not judged as
// errors, and the run says it stopped early.
func TestRunRoundsLeavesOutTheRoundTheDeadlineCut(t *testing.T) {
	s := &scripted{fail: map[int]error{3: ErrDeadline}}
	res, err := runScript(t, s, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rounds) != 2 || !res.StoppedEarly || res.Verdict.Status != Holds {
		t.Errorf("%d rounds, stopped early %v, verdict %s; want 2, true, holds", len(res.Rounds), res.StoppedEarly, res.Verdict.Status)
	}
	if !strings.Contains(strings.Join(res.Warnings, "|"), "passed after 2 of 5 rounds: the run stopped early") {
		t.Errorf("warnings %q", res.Warnings)
	}
}
