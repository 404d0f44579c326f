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

func TestEqualBodyIsAReplay(t *testing.T) {
	r := Round{Index: 1, Outcomes: []Outcome{
		{Kind: Win, Status: 200, body: []byte("same"), Elapsed: 2},
		{Kind: Win, Status: 200, body: []byte("same"), Elapsed: 1},
	}}
	markReplays(r.Outcomes)
	if r.Outcomes[0].Kind != Replay || r.Outcomes[1].Kind != Win {
		t.Fatalf("outcomes %+v: the later identical response must be the replay", r.Outcomes)
	}
}

func TestEffectCountOverridesResponses(t *testing.T) {
	two, one := 2, 1
	broken := Judge([]Round{{Index: 1, Effects: &two, Outcomes: []Outcome{{Kind: Win}, {Kind: Refusal}}}})
	if broken.Status != Broken || !strings.HasPrefix(broken.Sentence, "2 wins in round 1") {
		t.Errorf("verdict %+v, want broken by the counted effect", broken)
	}
	held := Judge([]Round{{Index: 1, Effects: &one, Outcomes: []Outcome{{Kind: Win}, {Kind: Win}}}})
	if held.Status != Holds {
		t.Errorf("verdict %+v, want holds: one effect counted", held)
	}
}
