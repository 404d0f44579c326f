package httprace

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// sendOne sends one request in the protocol the burst speaks (HTTP/1.1,
// h2c or HTTP/2 over TLS), through the same writers as the burst, and
// reads its response, on a connection of its own: with Probe.Warm one
// that carried the warm-up first, so that its time compares with the
// rounds' (the calibration's effect-before-claim rule compares them). It is how the calibration
// and the conformance checks talk to the target.
//
// Nothing is ever sent twice. net/http's Transport would resend a request
// that carries an Idempotency-Key or X-Idempotency-Key header when a
// reused keep-alive connection dies (it treats such requests as
// replayable), and a resent request is a second execution the probe
// never asked for. The probe writes its own requests instead, one
// connection each, and reports a dead connection as the error it is.
//
// The error is for a target that cannot be reached at all; a failure
// after the connection opened is the response's err. The duration is how
// long the response took from the request's release: with settle, the
// head is written that long before the tail, as in a round, so that the
// time is comparable with a round's (the calibration's); without it, the
// request goes out in one go.
func sendOne(ctx context.Context, p *Probe, sync string, r request, settle time.Duration) (racetest.Response, time.Duration, error) {
	one := *p
	one.N = 1
	one.Settle = settle
	if p.pool != nil {
		// A connection of its own, warmed like the rounds' but never
		// kept: its time compares with theirs, and a server that hands
		// connections to several processes picks one afresh.
		one.pool = &connPool{warmReq: p.pool.warmReq, warmShown: p.pool.warmShown}
		defer one.pool.close()
	}
	var b burst
	var err error
	if sync == SyncH2 {
		b, _, err = burstH2(ctx, &one, r)
	} else {
		b, err = burstH1(ctx, &one, r, 0)
	}
	if err != nil {
		return racetest.Response{}, 0, err
	}
	return b.responses[0], b.elapsed[0], nil
}
