package racetest

import (
	"bytes"
	"fmt"
	"slices"
	"time"
)

// Calibration is the server's replay signature: once per run, before the
// first round, one request with a fresh key and, after its response, the
// same request again (docs/race.md, "What counts as evidence", 3). Its key is used for
// nothing else.
type Calibration struct {
	Key       string    `json:"key"`
	Signature Signature `json:"signature"`
	// Sentence says what the retry showed and what follows for the run.
	Sentence string   `json:"sentence"`
	First    Exchange `json:"first,omitempty"`
	Retry    Exchange `json:"retry,omitempty"`
	// Effects is the oracle's count for the calibration key after both
	// requests: 2 is a broken gate on its own.
	Effects *int `json:"effects,omitempty"`
	// RefusalTimes are how long each refused retry of the finished key
	// took: without an oracle the refused retry is sent RefusalSamples
	// times, for the effect-before-claim rule (refusedAfterWork).
	RefusalTimes []time.Duration `json:"refusal_times_ns,omitempty"`
	// Unsteady says how the further retries answered when not as the
	// first did; the rule then cannot judge the refusal's time.
	Unsteady string `json:"unsteady,omitempty"`
	// RefusedWith is the status that refused the retry (SigRefuses).
	RefusedWith int `json:"-"`
	// Values are what the calibration's request rendered with, so that
	// its effect can be counted again.
	Values RoundValues `json:"-"`
	marker ReplayMarker
	oracle string
	// what Judge was given, for SetEffects
	cl           Classifier
	first, retry Response
}

// Exchange is one request and its response as shown to people, with
// secret headers redacted, and how long the response took from the
// request's release.
type Exchange struct {
	Request  string        `json:"request,omitempty"`
	Response string        `json:"response,omitempty"`
	Elapsed  time.Duration `json:"elapsed_ns,omitempty"`
}

// Broken reports whether the calibration alone shows the gate broken: the
// oracle counted two effects for its key retried in sequence, or, with no
// count, the retry came back an unmarked success although the user
// declared the marker this server sets on replays.
func (c *Calibration) Broken() bool {
	if c == nil {
		return false
	}
	if c.Effects != nil {
		return *c.Effects > 1
	}
	return c.Signature == SigUnmarked
}

// unresolved reports whether the calibration's retry may have run the
// effect again, with nothing to say whether it did: a success without the
// marker and no oracle. A gate that dedupes concurrent requests but runs a
// later retry again would otherwise hold.
func (c *Calibration) unresolved() bool {
	return c != nil && c.Effects == nil && (c.Signature == SigSameBytes || c.Signature == SigDifferent)
}

func (c *Calibration) retryWords() string {
	if c.Signature == SigSameBytes {
		return "the same bytes, unmarked"
	}
	return "a different success, unmarked"
}

// reason is the clause that justifies how successes were judged, ending a
// sentence such as "two identical 201s, <reason>".
func (c *Calibration) reason() string {
	if c == nil {
		return "and no calibration said how this server replays"
	}
	switch c.Signature {
	case SigMarked:
		return fmt.Sprintf("and this server marked the calibration retry with %s, so unmarked ones are wins", c.markerText())
	case SigRefuses:
		return fmt.Sprintf("and this server refused the calibration retry with %d, so it does not replay", c.RefusedWith)
	case SigSameBytes:
		return "and this server answered the calibration retry with the same bytes, unmarked, so its replays look like its wins"
	case SigDifferent:
		return "and this server answered the calibration retry with a different success, so it ran again or re-renders its replies"
	case SigUnmarked:
		return fmt.Sprintf("and this server answered the calibration retry without the declared marker %s too", c.markerText())
	case SigSkipped:
		return "and the calibration was skipped (--no-calibrate)"
	}
	return "and the calibration could not tell how this server replays"
}

func (c *Calibration) markerText() string {
	if c.marker.Name == "" {
		return DefaultReplayMarker().String()
	}
	return c.marker.String()
}

// UnmarkedWin reports whether r, the response to the calibration's first
// request, is a success without the replay marker m: only then is the
// request sent again, and only then does the retry say how the server
// replays.
func (cl Classifier) UnmarkedWin(r Response, m ReplayMarker) bool {
	kind, _ := cl.Classify(r, m.Marks(r.Header))
	return kind == Win
}

// Judge sets the signature and the sentence from the calibration's two
// responses: first, to a fresh key, and retry, to the same request sent
// again after first's response (the zero Response when first was no
// unmarked win, so nothing was retried). cl and m are the run's classifier
// and replay marker; oracle names the count in c.Effects when an effect
// oracle counted. A marker the user declared (m.Declared) is evidence: an
// unmarked success to the retry ran the effect again (SigUnmarked), and a
// calibration that never shows it says so.
func (c *Calibration) Judge(cl Classifier, m ReplayMarker, oracle string, first, retry Response) {
	c.marker, c.oracle, c.cl, c.first, c.retry = m, oracle, cl, first, retry
	kind, _ := cl.Classify(retry, m.Marks(retry.Header))
	switch {
	case !cl.UnmarkedWin(first, m):
		c.Signature = SigUnknown
		c.Sentence = fmt.Sprintf("the first calibration request got %s, not a success, so nothing was learnt about replays", ShowResponse(first, m))
	case retry.Err != nil:
		c.Signature = SigUnknown
		c.Sentence = fmt.Sprintf("the calibration retry failed (%s)", describeErr(retry.Err))
	case kind == Refusal:
		c.Signature, c.RefusedWith = SigRefuses, retry.Status
		c.Sentence = fmt.Sprintf("the retry of a finished key was refused with %d: this server never replays a success, so two successes in a round are two wins", retry.Status)
	case kind == Replay:
		c.Signature = SigMarked
		c.Sentence = fmt.Sprintf("the retry of a finished key was a replay marked %s: unmarked successes are wins", m)
	case kind == InFlight:
		c.Signature = SigUnknown
		c.Sentence = fmt.Sprintf("the retry of a finished key got %s, accepted for later (--in-flight), so nothing was learnt about replays", ShowResponse(retry, m))
	case kind == Win && m.Declared:
		c.Signature = SigUnmarked
		c.Sentence = fmt.Sprintf("the retry of a finished key got an unmarked success (first %s, then %s): by the declared marker %s it was no replay, so it ran the effect again",
			ShowResponse(first, m), ShowResponse(retry, m), m)
	case kind == Win && retry.Status == first.Status && bytes.Equal(retry.Body, first.Body):
		c.Signature = SigSameBytes
		c.Sentence = "the retry of a finished key got the same status and body, unmarked: replays cannot be told from wins by their responses"
	case kind == Win:
		c.Signature = SigDifferent
		c.Sentence = fmt.Sprintf("the retry of a finished key got a different success (first %s, then %s): it ran again or the server re-renders its replies; only an effect oracle can tell", ShowResponse(first, m), ShowResponse(retry, m))
	default:
		c.Signature = SigUnknown
		c.Sentence = fmt.Sprintf("the calibration retry got %s, neither a success nor a --refuse status; the run goes on as if replays could not be told from wins", ShowResponse(retry, m))
	}
	if m.Declared && c.Signature != SigMarked && c.Signature != SigUnknown {
		c.Sentence += fmt.Sprintf("; the server never sent %s on a replay", m)
	}
	if c.Effects == nil {
		return
	}
	switch n := *c.Effects; {
	case n > 1:
		c.Sentence += fmt.Sprintf("; %s was %d for one key sent twice in sequence: the gate ran the effect again", oracle, n)
	case c.Signature == SigUnmarked:
		c.Sentence += fmt.Sprintf("; but %s was %d for the two requests, so the retry was a replay without the marker: %s is not what this server sends on replays", oracle, n, m)
	default:
		c.Sentence += fmt.Sprintf("; %s was %d for the two requests", oracle, n)
	}
}

// SetEffects replaces the oracle's count (read again later, when a
// request may have performed its effect after the first count) and judges
// the calibration again.
func (c *Calibration) SetEffects(n int) {
	c.Effects = &n
	c.Judge(c.cl, c.marker, c.oracle, c.first, c.retry)
}

// SkippedCalibration is what --no-calibrate leaves in the result; m is
// the run's replay marker.
func SkippedCalibration(m ReplayMarker) *Calibration {
	return &Calibration{Signature: SigSkipped, marker: m,
		Sentence: "skipped (--no-calibrate): identical successes are unresolved unless an oracle counts them or the replay marker was declared"}
}

// RefusalAfterWork is the threshold of the effect-before-claim rule
// (docs/race.md, "What responses cannot show"): when the calibration's
// retry of a finished key, which waits on no lock, is refused only after
// at least this share of the time a win takes, the refusal came after the
// work, and responses cannot show that the refused request did nothing.
// It was chosen from the gates measured in docs/race.md.
const RefusalAfterWork = 0.75

// RefusalMargin is how much sooner than a win the retry's refusal must
// come, besides RefusalAfterWork, to show that it skipped the work: below
// it the difference is the noise of one request on a loaded machine, and
// a gate whose work takes less cannot be told from one whose effect runs
// first.
const RefusalMargin = time.Millisecond

// workTime is how long a request that performs the effect takes: the
// shortest of the calibration's first request and the rounds' wins. The
// machine, the network and the server only ever add time to a request, so
// the shortest of many is the closest to what the work itself costs (and a
// cold first request, or a win slowed by its round's other requests, does
// not count).
func (c *Calibration) workTime(rounds []Round) time.Duration {
	work := c.First.Elapsed
	for i := range rounds {
		for _, o := range rounds[i].Outcomes {
			if o.Kind == Win && o.Elapsed > 0 && (work <= 0 || o.Elapsed < work) {
				work = o.Elapsed
			}
		}
	}
	return work
}

// RefusalSamples is how many times the calibration sends a retry of its
// finished key that was refused, without an oracle: the shortest of their
// times is what the effect-before-claim rule compares with the shortest
// win, so that a request slowed down by the machine does not decide.
const RefusalSamples = 5

// refusalTime is the shortest of the refused retries' times.
func (c *Calibration) refusalTime() time.Duration {
	if len(c.RefusalTimes) == 0 {
		return c.Retry.Elapsed
	}
	return slices.Min(c.RefusalTimes)
}

// refusedAfterWork says, when the calibration's retry was refused only
// after about as long as a win takes, what it measured; "" otherwise.
func (c *Calibration) refusedAfterWork(rounds []Round) string {
	if c == nil || c.Signature != SigRefuses {
		return ""
	}
	if c.Unsteady != "" {
		return fmt.Sprintf("the calibration's retries of a finished key were not all refused alike (%s), so the time a refusal takes cannot be told, "+
			"and an effect that runs before its claim is invisible to responses", c.Unsteady)
	}
	refusal, work := c.refusalTime(), c.workTime(rounds)
	if refusal <= 0 || work <= 0 {
		return ""
	}
	ratio := float64(refusal) / float64(work)
	if ratio < RefusalAfterWork && work-refusal >= RefusalMargin {
		return ""
	}
	return fmt.Sprintf("the calibration's retry of a finished key, which waits on no lock, was refused (%d) after %s (the shortest of %d) where a win takes %s (the shortest; %.2f of it): "+
		"not clearly sooner (under %.2f of a win and %s sooner), so the refused request may have done the work before it refused, "+
		"and an effect that runs before its claim is invisible to responses",
		c.RefusedWith, fmtDuration(refusal), max(1, len(c.RefusalTimes)), fmtDuration(work), ratio, RefusalAfterWork, fmtDuration(RefusalMargin))
}
