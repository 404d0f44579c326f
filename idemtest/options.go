package idemtest

import (
	"context"
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/idemtest/internal/core"
	"github.com/idemcheck/idemcheck/racetest"
)

// An Option changes how a race runs. The options are the functions of this
// package that return one; idemsql.Claim takes them too, and refuses those
// that only an HTTP race uses.
type Option func(*core.Settings)

// N sets how many identical requests race in each round (default 2, at
// most 256). Two is the race that matters; more make a rare window easier
// to hit.
func N(n int) Option { return func(s *core.Settings) { s.N = n } }

// Rounds sets how many rounds run, each with a fresh key (default 30). A
// race is probabilistic: if one round exposes a broken gate with
// probability p, 30 rounds all miss it with probability (1-p)^30, under 5%
// for p >= 0.1.
func Rounds(n int) Option { return func(s *core.Settings) { s.Rounds = n } }

// Window sets the race window: a round whose requests were released (or,
// for a SQL claim, started) further apart than d cannot show a race, so it
// is inconclusive rather than a pass. Zero, the default, judges every
// round.
func Window(d time.Duration) Option { return func(s *core.Settings) { s.Window = d } }

// KeyHeader names the header that carries each round's key in a request
// built from the template (default Idempotency-Key). With BuildRequest the
// builder puts the key where the API wants it and this header is not set.
func KeyHeader(name string) Option {
	return func(s *core.Settings) {
		s.KeyHeader = name
		s.MarkHTTPOnly("idemtest.KeyHeader")
	}
}

// BuildRequest makes each round's request from its key, for APIs whose key
// belongs in the body or the URL. Pass a nil request to HTTP or Handler
// with it. build is called once per request (N times a round, twice for
// the calibration) and once before the first round to learn the target;
// the request is sent as built, body included, with nothing added. For
// Handler its URL may be a bare path; for HTTP it must be absolute.
func BuildRequest(build func(key string) *http.Request) Option {
	return func(s *core.Settings) {
		s.Build = build
		s.MarkHTTPOnly("idemtest.BuildRequest")
		if build == nil {
			s.Problem("idemtest.BuildRequest(nil): no builder")
		}
	}
}

// CountEffects gives the race an effect counter: count returns how many
// times the effect happened for key (the usual case: count rows in the
// test database). It is read before and after every round, and the
// difference decides the round whatever the responses claim; it is the
// strongest evidence there is, and the only one for a server that answers
// a replay with the same bytes as a win.
func CountEffects(count func(ctx context.Context, key string) (int, error)) Option {
	return func(s *core.Settings) {
		s.Count = count
		s.MarkHTTPOnly("idemtest.CountEffects")
		if count == nil {
			s.Problem("idemtest.CountEffects(nil): no counter")
		}
	}
}

// ReplayHeader declares the response header, and its value, by which the
// server marks a response as a replay of the winner's (without it,
// Idempotent-Replayed: true, as Stripe and several libraries send it, is
// recognised but proves nothing on its own). A marked response is never
// counted as a win; and since the server is said to mark every replay, an
// unmarked success beside a win is a second win, whatever the calibration
// saw, and a calibration retry that comes back unmarked ran the effect
// again. The result then says "the server never sent NAME: VALUE on a
// replay".
func ReplayHeader(name, value string) Option {
	return func(s *core.Settings) {
		m, err := racetest.ParseReplayMarker(name + ": " + value)
		if err != nil {
			s.Problem("idemtest.ReplayHeader(%q, %q): want a header name and a value", name, value)
		}
		m.Declared = true
		s.Replay = m
		s.MarkHTTPOnly("idemtest.ReplayHeader")
	}
}

// Win sets the statuses that mean a request performed the effect
// (default: every 2xx but the in-flight ones, see InFlight).
func Win(statuses ...int) Option {
	return func(s *core.Settings) {
		s.Win = s.Statuses("idemtest.Win", statuses, false)
		s.MarkHTTPOnly("idemtest.Win")
	}
}

// Refuse sets the statuses by which the gate refuses a request it has
// seen the key of (default 409 and 425).
func Refuse(statuses ...int) Option {
	return func(s *core.Settings) {
		s.Refuse = s.Statuses("idemtest.Refuse", statuses, false)
		s.MarkHTTPOnly("idemtest.Refuse")
	}
}

// InFlight sets the statuses of an answer that accepted the request for
// later without performing it yet (default 202 Accepted): they are neither
// wins nor refusals. A round of one win and in-flight answers holds; a
// round of in-flight answers only is inconclusive unless CountEffects
// counts it. Win overrides InFlight only by naming the status itself.
// InFlight() with no status turns the class off.
func InFlight(statuses ...int) Option {
	return func(s *core.Settings) {
		s.InFlight = s.Statuses("idemtest.InFlight", statuses, true)
		s.MarkHTTPOnly("idemtest.InFlight")
	}
}

// SameKey sends one key in every round: round 1 races it, and every later
// round retries it after it finished, so that a win there (or an effect the
// counter counts) means the effect ran again. Without it, a BuildRequest
// builder that makes the same request whatever the key fails the test
// before anything is sent.
func SameKey() Option {
	return func(s *core.Settings) {
		s.SameKey = true
		s.MarkHTTPOnly("idemtest.SameKey")
	}
}

// SkipInconclusive skips the test, with the reason, when the race cannot
// tell whether the gate held, instead of failing it (the default). A
// broken gate and a race that could not run still fail.
func SkipInconclusive() Option { return func(s *core.Settings) { s.SkipInconclusive = true } }
