package httprace

import (
	"context"
	"fmt"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// calibrate runs the calibration for p over the protocol sync speaks. An
// error means the target could not be reached at all.
func calibrate(ctx context.Context, p *Probe, sync string) (*racetest.Calibration, error) {
	v := p.values(p.RunID+"-calibration", 0)
	c := &racetest.Calibration{Key: v.Key}
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
	c.First = racetest.Exchange{Request: showRequest(req, p.Secrets), Response: racetest.ShowResponse(first, p.Marker)}
	var retry racetest.Response
	if p.Classifier.UnmarkedWin(first, p.Marker) {
		// A store written after the response (fire and forget, as some
		// libraries do) gets a moment to land, as it would before a real
		// client's retry.
		sleepCtx(ctx, min(p.Settle, time.Second))
		if retry, err = sendOne(ctx, p, sync, req); err != nil {
			return nil, err
		}
		c.Retry = racetest.Exchange{Request: c.First.Request, Response: racetest.ShowResponse(retry, p.Marker)}
	}
	oracle := ""
	if p.Effect != nil {
		oracle = p.Effect.Evidence()
		after, err := p.Effect.Count(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("%s after the calibration: %w", p.Effect.Evidence(), err)
		}
		n := int(after - before)
		c.Effects = &n
	}
	c.Judge(p.Classifier, p.Marker, oracle, first, retry)
	return c, nil
}
