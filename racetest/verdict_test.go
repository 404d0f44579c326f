package racetest

import (
	"strings"
	"testing"
	"time"
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

// refusedCal is a calibration whose retry was refused with 409 after
// retry, the first request having taken first.
func refusedCal(first time.Duration, retries ...time.Duration) *Calibration {
	c := &Calibration{Key: "k", First: Exchange{Elapsed: first}, Retry: Exchange{Elapsed: retries[0]}, RefusalTimes: retries}
	c.Judge(DefaultClassifier(), DefaultReplayMarker(), "", Response{Status: 201}, Response{Status: 409})
	return c
}

// holdingRounds are n rounds of a 201 (taking win) and a 409.
func holdingRounds(n int, win time.Duration) []Round {
	var rs []Round
	for i := 1; i <= n; i++ {
		rs = append(rs, Round{Index: i, Outcomes: []Outcome{{Kind: Win, Status: 201, Elapsed: win}, {Kind: Refusal, Status: 409, Elapsed: win}}})
	}
	return rs
}

// Without an oracle, a holding run holds by its responses, says so in the
// sentence and names the assumption; the effect-before-claim rule makes it
// inconclusive when the calibration's refused retries (the shortest) took
// about as long as a win (the shortest), or less than RefusalMargin less.
func TestHoldsByResponsesAndTheEffectBeforeClaimRule(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name    string
		cal     *Calibration
		win     time.Duration
		want    Status
		because string
	}{
		{"refused at once", refusedCal(20*ms, 2*ms, 3*ms, 2*ms), 20 * ms, Holds, ""},
		{"refused after the work", refusedCal(20*ms, 19*ms, 21*ms, 20*ms, 22*ms, 20*ms), 20 * ms, Inconclusive, "refused (409) after 19ms (the shortest of 5) where a win takes 20ms (the shortest; 0.95 of it)"},
		// The machine only adds time: a slow refusal is noise, a fast one
		// is what the gate does.
		{"slow samples do not hide a fast refusal", refusedCal(20*ms, 15*ms, 2*ms, 18*ms), 20 * ms, Holds, ""},
		{"a cold first request does not hide it", refusedCal(200*ms, 19*ms, 19*ms, 19*ms), 20 * ms, Inconclusive, "where a win takes 20ms"},
		{"sooner but by less than the margin", refusedCal(1200*time.Microsecond, 400*time.Microsecond), 1200 * time.Microsecond, Inconclusive, "not clearly sooner"},
	} {
		v := Judge(holdingRounds(5, c.win), c.cal)
		if v.Status != c.want || !strings.Contains(v.Sentence, c.because) {
			t.Errorf("%s: %+v, want %s because %q", c.name, v, c.want, c.because)
			continue
		}
		if c.want == Holds {
			if !strings.HasPrefix(v.Sentence, "the gate held by its responses: exactly one win in each of 5 rounds") ||
				v.Evidence != EvidenceResponses || v.Assumption != AssumptionResponses {
				t.Errorf("%s: %+v, want holds by its responses with the assumption", c.name, v)
			}
		} else if v.Cause != CauseEffectFirst || strings.HasPrefix(v.Sentence, "inconclusive") {
			t.Errorf("%s: %+v, want the effect-first cause, and no repeated word", c.name, v)
		}
	}
	// With an oracle the count decides, whatever the times.
	one := 1
	rounds := holdingRounds(3, 20*time.Millisecond)
	for i := range rounds {
		rounds[i].Effects = &one
	}
	if v := Judge(rounds, refusedCal(20*ms, 20*ms)); v.Status != Holds || v.Evidence != EvidenceCount || v.Assumption != "" {
		t.Errorf("with a count: %+v, want holds on the count, nothing assumed", v)
	}
}

// 202 is accepted, not performed: its own outcome, which --win overrides
// only by naming 202 itself. One win beside in-flight answers holds; a
// round of in-flight answers only is inconclusive.
func TestInFlightIsItsOwnOutcome(t *testing.T) {
	cl := DefaultClassifier()
	if k, _ := cl.Classify(Response{Status: 202}, false); k != InFlight {
		t.Errorf("202 under --win 2xx is %s, want in-flight", k)
	}
	cl.Win, _ = ParseStatusSet("200-202")
	if k, _ := cl.Classify(Response{Status: 202}, false); k != Win {
		t.Errorf("202 under --win 200-202 is %s, want a win (named)", k)
	}
	cl.Win, _ = ParseStatusSet("201")
	if k, msg := cl.Classify(Response{Status: 202}, false); k != InFlight || msg != "" {
		t.Errorf("202 under --win 201 is %s %q, want in-flight, not an error", k, msg)
	}
	r := Round{Index: 1, Outcomes: []Outcome{{Kind: Win, Status: 201}, {Kind: InFlight, Status: 202}}}
	r.Resolve(refusedCal(20*time.Millisecond, time.Millisecond), "")
	if r.Evidence != "one 201 won, one 202 accepted for later" {
		t.Errorf("evidence %q", r.Evidence)
	}
	only := Round{Index: 2, Outcomes: []Outcome{{Kind: InFlight, Status: 202}, {Kind: InFlight, Status: 202}}}
	only.Resolve(nil, "")
	v := Judge([]Round{r, only}, nil)
	if v.Status != Inconclusive || v.Cause != CauseInFlight || !strings.Contains(v.Sentence, "round 2 had no win: two 202s accepted for later") {
		t.Errorf("in-flight answers only: %+v, want inconclusive naming them", v)
	}
	if v := Judge([]Round{r}, refusedCal(20*time.Millisecond, time.Millisecond)); v.Status != Holds || v.Detail != "" || v.Assumption != AssumptionInFlight {
		t.Errorf("a win and a 202: %+v, want holds, assuming the accepted request will do no work", v)
	}
}

// A marker the user declared is evidence: an unmarked success beside a
// win is a second win whatever the calibration saw, and a calibration
// retry that comes back an unmarked success ran the effect again.
func TestDeclaredMarkerIsEvidence(t *testing.T) {
	m := DefaultReplayMarker()
	m.Declared = true
	cal := &Calibration{Key: "k"}
	cal.Judge(DefaultClassifier(), m, "", Response{Status: 201, Body: []byte("a")}, Response{Status: 201, Body: []byte("a")})
	if cal.Signature != SigUnmarked || !strings.Contains(cal.Sentence, "the server never sent Idempotent-Replayed: true on a replay") {
		t.Fatalf("calibration %+v, want an unmarked retry that names the missing marker", cal)
	}
	v := Judge(holdingRounds(2, time.Millisecond), cal)
	if v.Status != Broken || v.Evidence != EvidenceMarker || !strings.Contains(v.Sentence, "the calibration retry ran the effect again") {
		t.Errorf("verdict %+v, want broken by the marker", v)
	}
	// In a round: two identical unmarked 201s are two wins.
	marked := &Calibration{Key: "k"}
	marked.Judge(DefaultClassifier(), m, "", Response{Status: 201}, Response{Status: 409})
	r := Round{Index: 1, Outcomes: []Outcome{{Kind: Win, Status: 201, Body: []byte("a")}, {Kind: Win, Status: 201, Body: []byte("a")}}}
	r.Resolve(marked, "")
	if r.Unresolved || r.Count(Win) != 2 || !strings.Contains(r.Evidence, "without the declared replay marker Idempotent-Replayed: true") {
		t.Errorf("round %+v, want two wins by the declared marker", r)
	}
	if v := Judge([]Round{r}, marked); v.Status != Broken || v.Evidence != EvidenceMarker {
		t.Errorf("verdict %+v, want broken by the marker", v)
	}
	// Undeclared, the same round is unresolved under a same-bytes server.
	undeclared := Round{Index: 1, Outcomes: []Outcome{{Kind: Win, Status: 201, Body: []byte("a")}, {Kind: Win, Status: 201, Body: []byte("a")}}}
	undeclared.Resolve(&Calibration{Signature: SigSameBytes}, "")
	if !undeclared.Unresolved {
		t.Errorf("undeclared: %+v, want unresolved", undeclared)
	}
}

// With --same-key, round 1 races the key and every later round retries it
// once finished: a win there ran the effect again.
func TestSameKeyRetries(t *testing.T) {
	cal := refusedCal(20*time.Millisecond, time.Millisecond)
	rounds := holdingRounds(3, 20*time.Millisecond)
	for i := 1; i < 3; i++ {
		rounds[i].Retry = true
		rounds[i].Outcomes = []Outcome{{Kind: Refusal, Status: 409}, {Kind: Refusal, Status: 409}}
	}
	if v := Judge(rounds, cal); v.Status != Holds || !strings.Contains(v.Sentence, "exactly one win in round 1, and none in the 2 retries of its finished key") {
		t.Errorf("refused retries: %+v, want holds", v)
	}
	rounds[2].Outcomes[0] = Outcome{Kind: Win, Status: 201}
	rounds[2].Resolve(cal, "")
	v := Judge(rounds, cal)
	if v.Status != Broken || v.WorstRound != 3 || !strings.Contains(v.Sentence, "round 3 retried the key round 1 had finished, and the effect ran again") {
		t.Errorf("a retry that won: %+v, want broken by round 3", v)
	}
}

// A holding run with an oracle whose losers always got a 500 says so.
func TestHoldsSaysHowTheLosersFailed(t *testing.T) {
	one := 1
	var rounds []Round
	for i := 1; i <= 3; i++ {
		rounds = append(rounds, Round{Index: i, Effects: &one, Outcomes: []Outcome{{Kind: Win, Status: 201}, {Kind: Error, Status: 500, Err: "status 500"}}})
		rounds[i-1].Resolve(nil, "the --effect-url count")
	}
	v := Judge(rounds, nil)
	if v.Status != Holds || !strings.Contains(v.Sentence, "the --effect-url count was 1 in every round") || !strings.Contains(v.Detail, "got 500 in 3 of 3 rounds") {
		t.Errorf("verdict %+v, want holds naming the 500s", v)
	}
}

// An answer outside every class is no failure: the round says how it
// answered, not that it failed.
func TestUnexpectedStatusIsNotCalledFailed(t *testing.T) {
	r := Round{Index: 1, Outcomes: []Outcome{{Kind: Win, Status: 201}, {Kind: Error, Status: 302, Err: "unexpected status 302"}}}
	r.Resolve(nil, "")
	if strings.Contains(r.Evidence, "failed") || !strings.Contains(r.Evidence, "one 302 outside --win, --refuse and --in-flight") {
		t.Errorf("evidence %q", r.Evidence)
	}
}
