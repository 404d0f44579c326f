package httprace

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// calibrate runs the calibration for p over the protocol sync speaks. An
// error means the target could not be reached at all, stopped answering,
// or the oracle cannot see the calibration's key (it counted nothing for a
// request that won).
func calibrate(ctx context.Context, p *Probe, sync string) (*racetest.Calibration, roundCount, error) {
	var rc roundCount
	v := p.values(p.RunID+"-calibration", 0)
	c := &racetest.Calibration{Key: v.Key, Values: v}
	req, err := renderRequest(p, v)
	if err != nil {
		return nil, rc, err
	}
	if p.Effect != nil {
		if rc.before, err = p.countEffects(ctx, v, "before the calibration"); err != nil {
			return nil, rc, err
		}
	}
	first, took, err := calibrationRequest(ctx, p, sync, req, "the calibration's first request")
	if err != nil {
		return nil, rc, err
	}
	c.First = racetest.Exchange{Request: showRequest(req, p.Secrets), Response: racetest.ShowResponse(first, p.Marker), Elapsed: took}
	var retry racetest.Response
	if p.Classifier.UnmarkedWin(first, p.Marker) {
		// A store written after the response (fire and forget, as some
		// libraries do) gets a moment to land, as it would before a real
		// client's retry.
		sleepCtx(ctx, min(p.Settle, time.Second))
		if retry, took, err = calibrationRequest(ctx, p, sync, req, "the calibration retry"); err != nil {
			return nil, rc, err
		}
		c.Retry = racetest.Exchange{Request: c.First.Request, Response: racetest.ShowResponse(retry, p.Marker), Elapsed: took}
		if err := moreRefusals(ctx, p, sync, req, c, retry); err != nil {
			return nil, rc, err
		}
	}
	oracle := ""
	if p.Effect != nil {
		oracle = p.Effect.Evidence()
		sleepCtx(ctx, p.Settle) // an effect that lands after its answer
		after, err := p.countEffects(ctx, v, "after the calibration")
		if err != nil {
			return nil, rc, err
		}
		n := int(after - rc.before)
		c.Effects = &n
	}
	rc.ended = time.Now()
	rc.unknown = first.Err != nil || retry.Err != nil
	c.Judge(p.Classifier, p.Marker, oracle, first, retry)
	if c.Effects != nil && *c.Effects == 0 && p.Classifier.UnmarkedWin(first, p.Marker) {
		return nil, rc, fmt.Errorf("%w (%s for %s stayed the same after its request got %s; check what it counts by (its {{key}}, {{uuid}} or --effect-param), "+
			"or raise --settle (%s) if the effect lands later after its answer)", ErrOracleBlind, oracle, v.Key, racetest.ShowResponse(first, p.Marker), p.Settle)
	}
	return c, rc, nil
}

// moreRefusals sends the refused retry again, RefusalSamples times in all,
// when no oracle counts: the effect-before-claim rule compares the median
// of their times with a win's (docs/race.md, "What responses cannot
// show"). With an oracle the count decides and nothing more is sent.
func moreRefusals(ctx context.Context, p *Probe, sync string, req request, c *racetest.Calibration, retry racetest.Response) error {
	if kind, _ := p.Classifier.Classify(retry, p.Marker.Marks(retry.Header)); p.Effect != nil || kind != racetest.Refusal {
		return nil
	}
	c.RefusalTimes = append(c.RefusalTimes, c.Retry.Elapsed)
	for len(c.RefusalTimes) < racetest.RefusalSamples {
		sleepCtx(ctx, min(p.Settle, time.Second))
		again, took, err := calibrationRequest(ctx, p, sync, req, "a further calibration retry")
		if err != nil {
			return err
		}
		if again.Err != nil || again.Status != retry.Status {
			c.Unsteady = fmt.Sprintf("%d, then %s", retry.Status, racetest.ShowResponse(again, p.Marker))
			return nil
		}
		c.RefusalTimes = append(c.RefusalTimes, took)
	}
	return nil
}

// ErrOracleBlind is the calibration's error when its first request won
// and the oracle counted nothing for it.
var ErrOracleBlind = errors.New("the oracle counted 0 effects for the calibration request: it does not see this key")

// calibrationRequest sends one request of the calibration. A request that
// got no answer at all within --timeout ends the run (the target stopped
// answering, and every round would wait as long): a StopError naming the
// phase.
func calibrationRequest(ctx context.Context, p *Probe, sync string, r request, phase string) (racetest.Response, time.Duration, error) {
	start := time.Now()
	// The run's settle, so that its times compare with the rounds' wins.
	resp, took, err := sendOne(ctx, p, sync, r, p.Settle)
	if err == nil && stalled([]racetest.Response{resp}) && !runOver(ctx) {
		err = &racetest.StopError{Phase: phase, Elapsed: time.Since(start),
			Err: fmt.Errorf("no answer within --timeout %s: the target stopped answering", p.Timeout)}
	}
	return resp, took, err
}
