package racetest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// StatusSet is a set of HTTP statuses written as "2xx", "409,422" or
// "200-204".
type StatusSet []statusRange

type statusRange struct{ lo, hi int }

// ParseStatusSet reads a comma-separated list of statuses, classes (2xx)
// and ranges (200-204).
func ParseStatusSet(s string) (StatusSet, error) {
	var set StatusSet
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(strings.ToLower(part))
		if part == "" {
			continue
		}
		r, err := parseStatusRange(part)
		if err != nil {
			return nil, fmt.Errorf("status list %q: %v", s, err)
		}
		set = append(set, r)
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("status list %q is empty", s)
	}
	return set, nil
}

func parseStatusRange(part string) (statusRange, error) {
	if len(part) == 3 && strings.HasSuffix(part, "xx") && part[0] >= '1' && part[0] <= '5' {
		base := int(part[0]-'0') * 100
		return statusRange{base, base + 99}, nil
	}
	lo, hi, isRange := strings.Cut(part, "-")
	if !isRange {
		hi = lo
	}
	l, err1 := strconv.Atoi(lo)
	h, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || l < 100 || h > 599 || l > h {
		return statusRange{}, fmt.Errorf("%q is not a status, class (2xx) or range (200-204)", part)
	}
	return statusRange{l, h}, nil
}

// String writes the set back as ParseStatusSet reads it: "409,422",
// "2xx", "200-204".
func (s StatusSet) String() string {
	var parts []string
	for _, r := range s {
		if r.lo == r.hi {
			parts = append(parts, fmt.Sprint(r.lo))
		} else if r.hi-r.lo == 99 && r.lo%100 == 0 {
			parts = append(parts, fmt.Sprintf("%dxx", r.lo/100))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r.lo, r.hi))
		}
	}
	return strings.Join(parts, ",")
}

// Names reports whether the set names status by a status or a range of
// its own, not only by its class: "200,202" and "200-204" name 202, "2xx"
// does not.
func (s StatusSet) Names(status int) bool {
	for _, r := range s {
		class := r.hi-r.lo == 99 && r.lo%100 == 0
		if !class && status >= r.lo && status <= r.hi {
			return true
		}
	}
	return false
}

// Has reports whether status is in the set.
func (s StatusSet) Has(status int) bool {
	for _, r := range s {
		if status >= r.lo && status <= r.hi {
			return true
		}
	}
	return false
}

// Classifier decides what each response of a round was.
type Classifier struct {
	Win    StatusSet // default 2xx
	Refuse StatusSet // default 409,425
	// InFlight are the statuses of a request accepted but not yet
	// performed (default 202): an outcome of their own, which outranks Win
	// unless Win names the status itself (Names).
	InFlight StatusSet
}

// DefaultClassifier counts 2xx as wins, 409 and 425 as refusals and 202
// as in flight.
func DefaultClassifier() Classifier {
	win, _ := ParseStatusSet("2xx")
	refuse, _ := ParseStatusSet("409,425")
	inFlight, _ := ParseStatusSet("202")
	return Classifier{Win: win, Refuse: refuse, InFlight: inFlight}
}

// Response is what one request got back before classification.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	Err    error
}

// Classify turns one response into an outcome kind: a success is a win
// until the round's evidence says otherwise (Round.Resolve), or a replay
// when it carries the replay marker; an in-flight status is accepted work
// that was not performed yet.
func (c Classifier) Classify(r Response, replayed bool) (OutcomeKind, string) {
	switch {
	case r.Err != nil:
		return Error, describeErr(r.Err)
	case c.Refuse.Has(r.Status):
		return Refusal, ""
	case c.InFlight.Has(r.Status) && !c.Win.Names(r.Status):
		return InFlight, ""
	case c.Win.Has(r.Status) && replayed:
		return Replay, ""
	case c.Win.Has(r.Status):
		return Win, ""
	case r.Status >= 500:
		return Error, fmt.Sprintf("status %d", r.Status)
	}
	return Error, fmt.Sprintf("unexpected status %d (neither --win, --refuse nor --in-flight)", r.Status)
}

// IsTimeout reports whether err is a deadline that passed: a connection's,
// or a context's.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded)
}

// describeErr names a transport failure the way a person would.
func describeErr(err error) string {
	switch {
	case IsTimeout(err):
		return "timeout"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed without a response"
	}
	return err.Error()
}
