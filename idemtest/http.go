package idemtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/idemtest/internal/core"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/httprace"
)

// HTTP races N identical copies of req (two by default) at its URL, for
// 30 rounds with a fresh key each round, and fails the test with the
// verdict's sentence unless exactly one request performed the effect in
// every round. The failure stops the test (t.Fatal); CheckHTTP lets it go
// on.
//
// req is a template: the round's key goes in the key header
// (Idempotency-Key, see KeyHeader), and its body is read once and sent
// again with every request. Its URL must be absolute (http:// or
// https://); to race a handler inside the test, use Handler. Each request
// goes on a connection of its own and is never resent; TLS certificates
// are verified.
func HTTP(t testing.TB, req *http.Request, opts ...Option) *Result {
	t.Helper()
	return race(t, core.Require, "idemtest.HTTP", false, nil, req, opts)
}

// CheckHTTP is HTTP that marks the test failed (t.Error) and lets it go
// on, returning the result for further assertions.
func CheckHTTP(t testing.TB, req *http.Request, opts ...Option) *Result {
	t.Helper()
	return race(t, core.Check, "idemtest.CheckHTTP", false, nil, req, opts)
}

// race is HTTP and Handler: for Handler (served set), the requests go to h
// served on a loopback listener for the length of the race.
func race(t testing.TB, form core.Form, name string, served bool, h http.Handler, req *http.Request, opts []Option) *Result {
	t.Helper()
	s := core.Apply(opts)
	if served && h == nil {
		s.Problem("%s: the handler is nil", name)
	}
	for _, o := range s.SQLOnly {
		s.Problem("%s does not apply to an HTTP race", o)
	}
	if len(s.Problems) > 0 {
		return fromOutcome(core.CannotRun(t, form, "%s", strings.Join(s.Problems, "; ")))
	}
	build, err := builder(name, req, s)
	if err != nil {
		return fromOutcome(core.CannotRun(t, form, "%v", err))
	}
	if served {
		srv := serve(t, h)
		defer srv.close(t)
		build = retarget(build, srv.url)
	}
	// One request built ahead, with a key no round uses, names the target
	// (its scheme and host choose the protocol) and shows a builder's
	// mistake before anything is sent.
	first, err := build(racetest.NewRoundValues("", 0).UUID)
	if err != nil {
		return fromOutcome(core.CannotRun(t, form, "%v", err))
	}
	ctx, deadline, cancel := core.Context(t)
	defer cancel()
	p := httprace.Probe{
		Method: first.Method, URL: racetest.Template(first.URL.String()),
		N: s.N, Rounds: s.Rounds, Window: s.Window, Deadline: deadline,
		Settle: settle(first.URL), Marker: s.Replay, UUIDKeys: true, SameKey: s.SameKey,
		Classifier: racetest.Classifier{Win: s.Win, Refuse: s.Refuse, InFlight: s.InFlight},
		Build:      func(v racetest.RoundValues) (*http.Request, error) { return build(v.Key) },
	}
	if s.Count != nil {
		p.Effect = counter(s.Count)
	}
	res, err := httprace.Run(ctx, p)
	switch {
	case errors.Is(err, httprace.ErrIdenticalRounds):
		return fromOutcome(core.CannotRun(t, form, "the idemtest.BuildRequest builder makes the same request for every key, "+
			"so only round 1 would race a fresh key: put the key where the server reads it, or race one key on purpose with idemtest.SameKey"))
	case errors.Is(err, httprace.ErrOracleBlind):
		return fromOutcome(core.CannotRun(t, form, "the effect counter counted 0 effects for the calibration request: it does not see this key "+
			"(its request won, and the idemtest.CountEffects counter stayed the same for its key)"))
	case err != nil:
		return fromOutcome(core.CannotRun(t, form, "the race could not run: %v", err))
	}
	return fromOutcome(core.Finish(t, res, s, form))
}

// builder turns the template request, or the BuildRequest option, into
// what makes each request from its key.
func builder(name string, req *http.Request, s *core.Settings) (func(key string) (*http.Request, error), error) {
	switch {
	case req != nil && s.Build != nil:
		return nil, fmt.Errorf("%s: give a request or idemtest.BuildRequest, not both", name)
	case s.Build != nil:
		return func(key string) (*http.Request, error) {
			r := s.Build(key)
			if r == nil || r.URL == nil {
				return nil, fmt.Errorf("the idemtest.BuildRequest builder returned no request (or one without a URL) for key %s", key)
			}
			return r, nil
		}, nil
	case req == nil:
		return nil, fmt.Errorf("%s: no request (pass one, or a builder with idemtest.BuildRequest)", name)
	}
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: reading the request's body: %v", name, err)
		}
	}
	return func(key string) (*http.Request, error) {
		r := req.Clone(context.Background())
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		r.Header.Set(s.KeyHeader, key)
		return r, nil
	}, nil
}

// loopbackSettle is how long the withheld tails wait before the release
// when the target is on this machine: the heads are at the server within
// microseconds, and the race engine's 100 ms is for real networks. The
// race-evidence ground-truth suite runs with it.
const loopbackSettle = 5 * time.Millisecond

// settle is the engine's default (0) unless the target is on loopback.
func settle(u *url.URL) time.Duration {
	host := u.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		return loopbackSettle
	}
	return 0
}

// counter is an effect counter as the race engine asks for one.
type counter func(ctx context.Context, key string) (int, error)

func (c counter) Count(ctx context.Context, v racetest.RoundValues) (int64, error) {
	n, err := c(ctx, v.Key)
	if err == nil && n < 0 {
		err = fmt.Errorf("the effect counter returned %d for key %s", n, v.Key)
	}
	return int64(n), err
}

func (c counter) Evidence() string { return "the effect count" }
