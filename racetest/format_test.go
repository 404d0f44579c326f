package racetest

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/golden"
)

// brokenResult is a fixed result: round 2 has two wins, round 3 had an
// error that the broken verdict outranks. The calibration found that the
// server refuses a finished key, so its two 201s are two wins.
func brokenResult() *Result {
	arrival := 12 * time.Microsecond
	cal := &Calibration{Key: "k0", Signature: SigRefuses, RefusedWith: 409,
		Sentence: "the retry of a finished key was refused with 409: this server never replays a success, so two successes in a round are two wins",
		First:    Exchange{Request: "POST /claims [Idempotency-Key: k0] [Authorization: <redacted>]", Response: "201 {\"status\":\"charged\"}"},
		Retry:    Exchange{Request: "POST /claims [Idempotency-Key: k0] [Authorization: <redacted>]", Response: "409 key already claimed"}}
	res := &Result{Calibration: cal,
		Target: "http://127.0.0.1:8080/claims", Method: "POST", N: 2, Sync: "h1", Split: "headers",
		Rounds: []Round{
			{Index: 1, Key: "k1", ReleaseSpread: 20 * time.Microsecond, Outcomes: []Outcome{
				{Request: 1, Kind: Win, Status: 201, Elapsed: 300 * time.Microsecond},
				{Request: 2, Kind: Refusal, Status: 409, Elapsed: 310 * time.Microsecond}}},
			{Index: 2, Key: "k2", ReleaseSpread: 25 * time.Microsecond, ArrivalSpread: &arrival, Outcomes: []Outcome{
				{Request: 1, Kind: Win, Status: 201, Elapsed: 420 * time.Microsecond},
				{Request: 2, Kind: Win, Status: 201, Elapsed: 1500 * time.Microsecond}}},
			{Index: 3, Key: "k3", ReleaseSpread: 30 * time.Microsecond, Outcomes: []Outcome{
				{Request: 1, Kind: Win, Status: 201, Elapsed: 300 * time.Microsecond},
				{Request: 2, Kind: Error, Err: "timeout", Elapsed: 5 * time.Second}}},
		},
	}
	for i := range res.Rounds {
		res.Rounds[i].Resolve(cal, "")
	}
	return res
}

func TestTextGolden(t *testing.T) {
	res := brokenResult()
	res.Verdict = Judge(res.Rounds, res.Calibration)
	for _, c := range []struct {
		name    string
		verbose bool
	}{{"broken.txt", false}, {"broken-verbose.txt", true}} {
		var b bytes.Buffer
		if err := WriteText(&b, res, c.verbose); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("..", "testdata", "race", c.name), b.Bytes())
	}
}

func TestJSONGolden(t *testing.T) {
	res := brokenResult()
	res.Verdict = Judge(res.Rounds, res.Calibration)
	var b bytes.Buffer
	if err := WriteJSON(&b, res, "v9.8.7"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "../testdata/race/broken.json", b.Bytes())
}
