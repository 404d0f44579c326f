// Package core is what the idemtest helpers share: the settings their
// options set, and the judging of a race into the test's verdict, the
// failure message and the report. idemtest and idemtest/idemsql are its
// only importers; it imports neither a database driver nor anything that
// needs cgo.
package core

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
	"golang.org/x/net/http/httpguts"
)

// Settings are what the options set. Defaults fills in the rest.
type Settings struct {
	N      int
	Rounds int
	Window time.Duration
	// KeyHeader carries the round's key in a request built from a template.
	KeyHeader string
	// Build makes each request from the round's key (BuildRequest).
	Build func(key string) *http.Request
	// Count is the effect counter (CountEffects).
	Count func(ctx context.Context, key string) (int, error)
	// Replay is the replay marker; the zero value means the default. Its
	// Declared is set by ReplayHeader.
	Replay racetest.ReplayMarker
	// Win, Refuse and InFlight are the status classes; nil means the
	// engine's default (2xx, 409 and 425, 202).
	Win, Refuse, InFlight racetest.StatusSet
	// SameKey sends one key in every round (idemtest.SameKey).
	SameKey bool
	// Isolation is a SQL claim's isolation level (idemsql.Isolation);
	// empty means READ COMMITTED, rolled back.
	Isolation string
	// SQLOnly names the options given that only a SQL race uses, so that
	// an HTTP race can say they do not apply.
	SQLOnly []string
	// SkipInconclusive turns an inconclusive run into a skip.
	SkipInconclusive bool
	// HTTPOnly names the options given that only an HTTP race uses, so
	// that a SQL race can say they do not apply.
	HTTPOnly []string
	// Problems are options given values that cannot run, said in the
	// options' own names.
	Problems []string
}

// Apply runs the options over the defaults and checks the result.
func Apply[O ~func(*Settings)](opts []O) *Settings {
	s := &Settings{N: 2, Rounds: 30, KeyHeader: "Idempotency-Key"}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	s.check()
	return s
}

// Problem records an option given a value that cannot run.
func (s *Settings) Problem(format string, args ...any) {
	s.Problems = append(s.Problems, fmt.Sprintf(format, args...))
}

// check words what racetest.CheckLimits refuses in the options' names.
func (s *Settings) check() {
	if s.N < 2 {
		s.Problem("idemtest.N(%d): a race needs at least 2 requests", s.N)
	}
	if s.N > racetest.MaxN {
		s.Problem("idemtest.N(%d): above %d requests a race turns into a load test", s.N, racetest.MaxN)
	}
	if s.Rounds < 1 {
		s.Problem("idemtest.Rounds(%d): a race needs at least 1 round", s.Rounds)
	}
	if s.Rounds > racetest.MaxRounds {
		s.Problem("idemtest.Rounds(%d): at most %d rounds", s.Rounds, racetest.MaxRounds)
	}
	if s.Window < 0 {
		s.Problem("idemtest.Window(%s): the window cannot be negative", s.Window)
	}
	if !httpguts.ValidHeaderFieldName(s.KeyHeader) {
		s.Problem("idemtest.KeyHeader(%q): not a header name", s.KeyHeader)
	}
}

// Statuses is the status set of the option name (idemtest.Win) given
// statuses; empty is allowed only when allowNone is set (InFlight).
func (s *Settings) Statuses(name string, statuses []int, allowNone bool) racetest.StatusSet {
	if len(statuses) == 0 {
		if !allowNone {
			s.Problem("%s(): give at least one status", name)
		}
		return racetest.StatusSet{}
	}
	parts := make([]string, len(statuses))
	for i, st := range statuses {
		if st < 100 || st > 599 {
			s.Problem("%s(%d): not an HTTP status", name, st)
			return nil
		}
		parts[i] = strconv.Itoa(st)
	}
	set, err := racetest.ParseStatusSet(strings.Join(parts, ","))
	if err != nil {
		s.Problem("%s: %v", name, err)
	}
	return set
}

// MarkSQLOnly notes that the option name was given, for an HTTP race to
// refuse.
func (s *Settings) MarkSQLOnly(name string) { s.SQLOnly = append(s.SQLOnly, name) }

// MarkHTTPOnly notes that the option name was given, for a SQL race to
// refuse.
func (s *Settings) MarkHTTPOnly(name string) { s.HTTPOnly = append(s.HTTPOnly, name) }
