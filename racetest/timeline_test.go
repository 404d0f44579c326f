package racetest

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"
)

// The timeline is well-formed XML whatever the target, the request and the
// verdict contain, and names every round once.
func TestTimelineIsWellFormedSVG(t *testing.T) {
	two, one := 2, 1
	arr := func(d time.Duration) *time.Duration { return &d }
	res := &Result{Target: `http://x/<a&b>"`, Method: "POST", N: 2, Sync: "h1", Split: "headers", Window: 200 * time.Microsecond,
		Verdict: Verdict{Status: Broken, Sentence: `2 wins in round 1 <"&">`},
		Rounds: []Round{
			{Index: 1, Effects: &two, Outcomes: []Outcome{{Request: 1, Kind: Win, Status: 201, Elapsed: time.Millisecond, Arrival: arr(5 * time.Microsecond)},
				{Request: 2, Kind: Win, Status: 201, Released: 30 * time.Microsecond, Elapsed: time.Millisecond, Arrival: arr(40 * time.Microsecond)}}},
			{Index: 2, Effects: &one, Outcomes: []Outcome{{Request: 1, Kind: Win, Status: 201}, {Request: 2, Kind: Refusal, Status: 409, Err: "\x00<bad>"}}},
			{Index: 3, Unresolved: true},
		}}
	var b strings.Builder
	if err := WriteTimeline(&b, res, `POST /x [Authorization: <redacted>] {"a":"<&>"}`); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(strings.NewReader(b.String()))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, b.String())
		}
	}
	for _, want := range []string{">round 1<", ">round 2<", ">round 3<", `fill="` + ColourCaught, `fill="` + ColourMissed, `fill="` + ColourUnjudged, "[Authorization: &lt;redacted&gt;]"} {
		if strings.Count(b.String(), want) < 1 {
			t.Errorf("the timeline lacks %q", want)
		}
	}
}
