package racetest

import (
	"strings"
	"testing"
)

func TestConfidenceSentence(t *testing.T) {
	cases := map[int]string{
		30:  "30 rounds all miss it with probability (1-p)^30, under 5% for p >= 0.1.",
		10:  "under 5% for p >= 0.26.",
		100: "under 5% for p >= 0.03.",
	}
	for rounds, want := range cases {
		if got := ConfidenceSentence(rounds); !strings.HasSuffix(got, want) {
			t.Errorf("ConfidenceSentence(%d) = %q, want suffix %q", rounds, got, want)
		}
	}
}

func TestParseStatusSet(t *testing.T) {
	s, err := ParseStatusSet("2xx, 409,420-422")
	if err != nil {
		t.Fatal(err)
	}
	for status, want := range map[int]bool{200: true, 299: true, 300: false, 409: true, 421: true, 423: false} {
		if s.Has(status) != want {
			t.Errorf("Has(%d) = %v, want %v", status, !want, want)
		}
	}
	for _, bad := range []string{"", "abc", "6xx", "500-400", "99"} {
		if _, err := ParseStatusSet(bad); err == nil {
			t.Errorf("ParseStatusSet(%q) accepted", bad)
		}
	}
}

// TestEqualBodyIsNotAReplay: two identical unmarked successes are what a
// handler that ran twice sends as well as what a replay looks like. Without
// an oracle, and with a server whose replays look like its wins, the round
// is unresolved, never a win and a replay.
func TestEqualBodyIsNotAReplay(t *testing.T) {
	r := Round{Index: 1, Outcomes: []Outcome{
		{Kind: Win, Status: 200, Body: []byte("same"), Elapsed: 2},
		{Kind: Win, Status: 200, Body: []byte("same"), Elapsed: 1},
	}}
	r.Resolve(&Calibration{Signature: SigSameBytes}, "")
	if !r.Unresolved || r.Count(Replay) != 0 {
		t.Fatalf("round %+v: identical successes must be unresolved, not a replay", r)
	}
	v := Judge([]Round{r}, &Calibration{Signature: SigSameBytes})
	if v.Status != Inconclusive || !strings.Contains(v.Sentence, "1 of 1 rounds are unresolved") || !strings.Contains(v.Cause, "--effect-url") {
		t.Fatalf("verdict %+v, want inconclusive with the way to settle it", v)
	}
}

func TestEffectCountOverridesResponses(t *testing.T) {
	two, one := 2, 1
	broken := []Round{{Index: 1, Effects: &two, Outcomes: []Outcome{{Kind: Win}, {Kind: Refusal}}}}
	broken[0].Resolve(nil, "the PostgreSQL count")
	v := Judge(broken, nil)
	if v.Status != Broken || !strings.HasPrefix(v.Sentence, "2 wins in round 1 (the PostgreSQL count was 2)") {
		t.Errorf("verdict %+v, want broken by the counted effect, naming it", v)
	}
	if !strings.Contains(broken[0].Disagreement, "the PostgreSQL count was 2, but the responses show") {
		t.Errorf("disagreement %q, want the count set against the responses", broken[0].Disagreement)
	}
	held := []Round{{Index: 1, Effects: &one, Outcomes: []Outcome{{Kind: Win}, {Kind: Win}}}}
	held[0].Resolve(&Calibration{Signature: SigSameBytes}, "the PostgreSQL count")
	if v := Judge(held, nil); v.Status != Holds {
		t.Errorf("verdict %+v, want holds: one effect counted", v)
	}
}
