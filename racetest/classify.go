package racetest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
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
}

// DefaultClassifier counts 2xx as wins and 409 and 425 as refusals.
func DefaultClassifier() Classifier {
	win, _ := ParseStatusSet("2xx")
	refuse, _ := ParseStatusSet("409,425")
	return Classifier{Win: win, Refuse: refuse}
}

// response is what one request got back before classification.
type response struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// classify turns one response into an outcome kind: a success is a win
// until the round's evidence says otherwise (resolveRound), or a replay
// when it carries the replay marker.
func (c Classifier) classify(r response, replayed bool) (OutcomeKind, string) {
	switch {
	case r.err != nil:
		return Error, describeErr(r.err)
	case c.Refuse.Has(r.status):
		return Refusal, ""
	case c.Win.Has(r.status) && replayed:
		return Replay, ""
	case c.Win.Has(r.status):
		return Win, ""
	case r.status >= 500:
		return Error, fmt.Sprintf("status %d", r.status)
	}
	return Error, fmt.Sprintf("unexpected status %d (neither --win nor --refuse)", r.status)
}
