package racetest

import (
	"bytes"
	"context"
	"fmt"
	"time"
)

// Calibration is the server's replay signature: once per run, before the
// first round, one request with a fresh key and, after its response, the
// same request again (RACE.md, "Classification", 3). Its key is used for
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
	marker      ReplayMarker
	oracle      string
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

// calibrate runs the calibration for p over the protocol sync speaks. An
// error means the target could not be reached at all.
func calibrate(ctx context.Context, p *Probe, sync string) (*Calibration, error) {
	v := NewRoundValues(p.RunID+"-calibration", 0)
	c := &Calibration{Key: v.Key, marker: p.Marker}
	req, err := renderRequest(p, v)
	if err != nil {
		return nil, err
	}
	var before int64
	if p.Effect != nil {
		if before, err = p.Effect.Count(ctx, v); err != nil {
			return nil, fmt.Errorf("%s before the calibration: %w", p.Effect.Evidence(), err)
		}
	}
	first, err := sendOne(ctx, p, sync, req)
	if err != nil {
		return nil, err
	}
	c.First = Exchange{Request: showRequest(req, p.Secrets), Response: showResponse(first, p.Marker)}
	firstWon := first.err == nil && p.Classifier.Win.Has(first.status) && !p.Marker.marks(first.header)
	var retry response
	if firstWon {
		// A store written after the response (fire and forget, as some
		// libraries do) gets a moment to land, as it would before a real
		// client's retry.
		sleepCtx(ctx, min(p.Settle, time.Second))
		if retry, err = sendOne(ctx, p, sync, req); err != nil {
			return nil, err
		}
		c.Retry = Exchange{Request: c.First.Request, Response: showResponse(retry, p.Marker)}
	}
	if p.Effect != nil {
		c.oracle = p.Effect.Evidence()
		after, err := p.Effect.Count(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("%s after the calibration: %w", p.Effect.Evidence(), err)
		}
		n := int(after - before)
		c.Effects = &n
	}
	c.judge(p, first, retry, firstWon)
	return c, nil
}

// judge sets the signature and the sentence from the two responses.
func (c *Calibration) judge(p *Probe, first, retry response, firstWon bool) {
	switch {
	case !firstWon:
		c.Signature = SigUnknown
		c.Sentence = fmt.Sprintf("the first calibration request got %s, not a success, so nothing was learnt about replays", showResponse(first, p.Marker))
	case retry.err != nil:
		c.Signature = SigUnknown
		c.Sentence = fmt.Sprintf("the calibration retry failed (%s)", describeErr(retry.err))
	case p.Classifier.Refuse.Has(retry.status):
		c.Signature, c.RefusedWith = SigRefuses, retry.status
		c.Sentence = fmt.Sprintf("the retry of a finished key was refused with %d: this server never replays a success, so two successes in a round are two wins", retry.status)
	case p.Classifier.Win.Has(retry.status) && p.Marker.marks(retry.header):
		c.Signature = SigMarked
		c.Sentence = fmt.Sprintf("the retry of a finished key was a replay marked %s: unmarked successes are wins", p.Marker)
	case p.Classifier.Win.Has(retry.status) && retry.status == first.status && bytes.Equal(retry.body, first.body):
		c.Signature = SigSameBytes
		c.Sentence = "the retry of a finished key got the same status and body, unmarked: replays cannot be told from wins by their responses"
	case p.Classifier.Win.Has(retry.status):
		c.Signature = SigDifferent
		c.Sentence = fmt.Sprintf("the retry of a finished key got a different success (first %s, then %s): it ran again or the server re-renders its replies; only an effect oracle can tell", showResponse(first, p.Marker), showResponse(retry, p.Marker))
	default:
		c.Signature = SigUnknown
		c.Sentence = fmt.Sprintf("the calibration retry got %s, neither a success nor a --refuse status; the run goes on as if replays could not be told from wins", showResponse(retry, p.Marker))
	}
	if c.Effects == nil {
		return
	}
	switch n := *c.Effects; {
	case n > 1:
		c.Sentence += fmt.Sprintf("; %s was %d for one key sent twice in sequence: the gate ran the effect again", p.Effect.Evidence(), n)
	default:
		c.Sentence += fmt.Sprintf("; %s was %d for the two requests", p.Effect.Evidence(), n)
	}
}

// skippedCalibration is what --no-calibrate leaves in the result.
func skippedCalibration() *Calibration {
	return &Calibration{Signature: SigSkipped, Sentence: "skipped (--no-calibrate): identical successes are unresolved unless an oracle counts them"}
}
