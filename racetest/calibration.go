package racetest

import (
	"bytes"
	"fmt"
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
// secret headers redacted.
type Exchange struct {
	Request  string `json:"request,omitempty"`
	Response string `json:"response,omitempty"`
}

// Broken reports whether the oracle counted two effects for the
// calibration's key retried in sequence.
func (c *Calibration) Broken() bool { return c != nil && c.Effects != nil && *c.Effects > 1 }

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
	return r.Err == nil && cl.Win.Has(r.Status) && !m.Marks(r.Header)
}

// Judge sets the signature and the sentence from the calibration's two
// responses: first, to a fresh key, and retry, to the same request sent
// again after first's response (the zero Response when first was no
// unmarked win, so nothing was retried). cl and m are the run's classifier
// and replay marker; oracle names the count in c.Effects when an effect
// oracle counted.
func (c *Calibration) Judge(cl Classifier, m ReplayMarker, oracle string, first, retry Response) {
	c.marker, c.oracle, c.cl, c.first, c.retry = m, oracle, cl, first, retry
	switch {
	case !cl.UnmarkedWin(first, m):
		c.Signature = SigUnknown
		c.Sentence = fmt.Sprintf("the first calibration request got %s, not a success, so nothing was learnt about replays", ShowResponse(first, m))
	case retry.Err != nil:
		c.Signature = SigUnknown
		c.Sentence = fmt.Sprintf("the calibration retry failed (%s)", describeErr(retry.Err))
	case cl.Refuse.Has(retry.Status):
		c.Signature, c.RefusedWith = SigRefuses, retry.Status
		c.Sentence = fmt.Sprintf("the retry of a finished key was refused with %d: this server never replays a success, so two successes in a round are two wins", retry.Status)
	case cl.Win.Has(retry.Status) && m.Marks(retry.Header):
		c.Signature = SigMarked
		c.Sentence = fmt.Sprintf("the retry of a finished key was a replay marked %s: unmarked successes are wins", m)
	case cl.Win.Has(retry.Status) && retry.Status == first.Status && bytes.Equal(retry.Body, first.Body):
		c.Signature = SigSameBytes
		c.Sentence = "the retry of a finished key got the same status and body, unmarked: replays cannot be told from wins by their responses"
	case cl.Win.Has(retry.Status):
		c.Signature = SigDifferent
		c.Sentence = fmt.Sprintf("the retry of a finished key got a different success (first %s, then %s): it ran again or the server re-renders its replies; only an effect oracle can tell", ShowResponse(first, m), ShowResponse(retry, m))
	default:
		c.Signature = SigUnknown
		c.Sentence = fmt.Sprintf("the calibration retry got %s, neither a success nor a --refuse status; the run goes on as if replays could not be told from wins", ShowResponse(retry, m))
	}
	if c.Effects == nil {
		return
	}
	switch n := *c.Effects; {
	case n > 1:
		c.Sentence += fmt.Sprintf("; %s was %d for one key sent twice in sequence: the gate ran the effect again", oracle, n)
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

// SkippedCalibration is what --no-calibrate leaves in the result.
func SkippedCalibration() *Calibration {
	return &Calibration{Signature: SigSkipped, Sentence: "skipped (--no-calibrate): identical successes are unresolved unless an oracle counts them"}
}
