package httprace

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// calibrate runs the calibration for p over the protocol sync speaks. An
// error means the target could not be reached at all.
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
	first, err := calibrationRequest(ctx, p, sync, req, "the calibration's first request")
	if err != nil {
		return nil, rc, err
	}
	c.First = racetest.Exchange{Request: showRequest(req, p.Secrets), Response: racetest.ShowResponse(first, p.Marker)}
	var retry racetest.Response
	if p.Classifier.UnmarkedWin(first, p.Marker) {
		// A store written after the response (fire and forget, as some
		// libraries do) gets a moment to land, as it would before a real
		// client's retry.
		sleepCtx(ctx, min(p.Settle, time.Second))
		if retry, err = calibrationRequest(ctx, p, sync, req, "the calibration retry"); err != nil {
			return nil, rc, err
		}
		c.Retry = racetest.Exchange{Request: c.First.Request, Response: racetest.ShowResponse(retry, p.Marker)}
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
	return c, rc, nil
}

// calibrationRequest sends one request of the calibration. A request that
// got no answer at all within --timeout ends the run (the target stopped
// answering, and every round would wait as long): a StopError naming the
// phase.
func calibrationRequest(ctx context.Context, p *Probe, sync string, r request, phase string) (racetest.Response, error) {
	start := time.Now()
	resp, err := sendOne(ctx, p, sync, r)
	if err == nil && stalled([]racetest.Response{resp}) && !runOver(ctx) {
		err = &racetest.StopError{Phase: phase, Elapsed: time.Since(start),
			Err: fmt.Errorf("no answer within --timeout %s: the target stopped answering", p.Timeout)}
	}
	return resp, err
}
