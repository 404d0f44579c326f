package racetest

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Classification rests on evidence, never on resemblance (docs/race.md): two
// identical success responses are what a handler that ran twice sends as
// well as what a replay looks like. What tells them apart, strongest
// first, is an effect oracle's count, a replay marker, and the server's
// replay signature found by the calibration.

// ReplayMarker is the response header by which a server says that a
// response is a replay: Idempotent-Replayed: true by default (Stripe and
// several libraries), or what --replay-header names.
type ReplayMarker struct {
	Name  string
	Value string
	// Declared is set when the user named the marker (--replay-header
	// given, idemtest.ReplayHeader): it is then evidence of its own, and
	// an unmarked success is a win whatever the calibration saw
	// (docs/race.md, "What counts as evidence").
	Declared bool
}

// DefaultReplayMarker is Idempotent-Replayed: true.
func DefaultReplayMarker() ReplayMarker {
	return ReplayMarker{Name: "Idempotent-Replayed", Value: "true"}
}

// ParseReplayMarker reads 'Name: value'.
func ParseReplayMarker(s string) (ReplayMarker, error) {
	name, value, ok := strings.Cut(s, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" || value == "" || strings.ContainsAny(s, "\r\n") {
		return ReplayMarker{}, fmt.Errorf("--replay-header %q: want 'Name: value'", s)
	}
	return ReplayMarker{Name: name, Value: value}, nil
}

func (m ReplayMarker) String() string { return m.Name + ": " + m.Value }

// Marks reports whether h carries the marker (the value compared without
// regard to case or surrounding space).
func (m ReplayMarker) Marks(h http.Header) bool {
	for _, v := range h.Values(m.Name) {
		if strings.EqualFold(strings.TrimSpace(v), m.Value) {
			return true
		}
	}
	return false
}

// Signature is what the server does with a key whose request has already
// finished, as the calibration found it.
type Signature string

const (
	// SigMarked: the retry was answered with the replay marker, so an
	// unmarked success is a win.
	SigMarked Signature = "marked-replay"
	// SigRefuses: the retry was refused, so this server never replays a
	// success and every success is a win.
	SigRefuses Signature = "refuses-retry"
	// SigSameBytes: the retry got the same status and body, unmarked, so
	// replays cannot be told from wins by the responses.
	SigSameBytes Signature = "same-bytes"
	// SigDifferent: the retry got another success: either it ran again or
	// the server re-renders its replies. Only an oracle can tell.
	SigDifferent Signature = "different-success"
	// SigUnmarked: the user declared the replay marker and the retry got a
	// success without it: by the marker it ran the effect again.
	SigUnmarked Signature = "unmarked-retry"
	// SigUnknown: the calibration got an error, an unexpected status or no
	// success to start from; the run goes on as if replays could not be
	// told from wins.
	SigUnknown Signature = "inconclusive"
	// SigSkipped: --no-calibrate; judged as SigUnknown.
	SigSkipped Signature = "skipped"
)

// successesAreWins reports whether every unmarked success is a win under
// this signature.
func (s Signature) successesAreWins() bool { return s == SigMarked || s == SigRefuses }

// Resolve decides, from the evidence at hand, which of the round's
// successes were wins, and says so in r.Evidence. Marked replays are
// replays already; an oracle's count (r.Effects, named by oracle) decides
// alone; a replay marker the user declared makes every unmarked success a
// win; otherwise the calibration's signature (cal, nil when there was
// none) says whether an unmarked success can be a replay at all. In a
// round that retried a finished key (r.Retry, --same-key), an unmarked
// success ran the effect again when it is known to be no replay.
func (r *Round) Resolve(cal *Calibration, oracle string) {
	sig := SigSkipped
	var m ReplayMarker
	if cal != nil {
		sig, m = cal.Signature, cal.marker
	}
	var unmarked []int
	for i, o := range r.Outcomes {
		if o.Kind == Win {
			unmarked = append(unmarked, i)
		}
	}
	winsKnown := m.Declared || sig.successesAreWins()
	if r.Effects != nil {
		r.Evidence = fmt.Sprintf("%s was %d", oracle, *r.Effects)
		r.Disagreement = disagreement(r, winsKnown, unmarked, oracle)
		return
	}
	switch {
	case r.Retry && len(unmarked) > 0 && winsKnown:
		r.Evidence = successWords(r, unmarked) + " to a retry of the finished key, " + winsReason(cal)
	case r.Retry && len(unmarked) > 0:
		for _, i := range unmarked {
			r.Outcomes[i].Kind = Undecided
		}
		r.Unresolved = true
		r.Evidence = successWords(r, unmarked) + " to a retry of the finished key that may replay round 1's win, " + cal.reason()
	case len(unmarked) <= 1:
		r.Evidence = responsesEvidence(r)
	case winsKnown:
		r.Evidence = winsEvidence(r, unmarked, cal)
	default:
		// Identical unmarked successes may be replays of one win. Under
		// SigDifferent even different bodies may be (the server
		// re-renders), so every success after the first is undecided.
		groups := map[string]bool{}
		for _, i := range unmarked {
			o := &r.Outcomes[i]
			sig := strconv.Itoa(o.Status) + "\x00" + string(o.Body)
			if groups[sig] || (cal != nil && cal.Signature == SigDifferent && len(groups) > 0) {
				o.Kind = Undecided
				continue
			}
			groups[sig] = true
		}
		if len(groups) > 1 {
			r.Evidence = winsEvidence(r, unmarked, cal)
		} else {
			r.Unresolved = true
			r.Evidence = unresolvedEvidence(r, unmarked, cal)
		}
	}
}

// winsReason is why unmarked successes are wins: the declared marker, or
// the calibration.
func winsReason(cal *Calibration) string {
	if cal != nil && cal.marker.Declared {
		return fmt.Sprintf("without the declared replay marker %s, so none is a replay", cal.markerText())
	}
	return cal.reason()
}

// responsesEvidence describes a round the responses settle by themselves.
func responsesEvidence(r *Round) string {
	var parts []string
	for _, k := range []OutcomeKind{Win, Replay, Refusal, InFlight, Error} {
		if s := statusList(r, k); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

// statusList says "one 201", "two 409s" or "a 201 and a 200" for the
// outcomes of kind k, with the kind's word.
func statusList(r *Round, k OutcomeKind) string {
	counts := map[string]int{}
	var order []string
	for _, o := range r.Outcomes {
		if o.Kind != k {
			continue
		}
		s := strconv.Itoa(o.Status)
		if o.Status == 0 {
			s = "\x00" + o.Err // a transport error names itself
		}
		if counts[s] == 0 {
			order = append(order, s)
		}
		counts[s]++
	}
	if len(order) == 0 {
		return ""
	}
	sort.Strings(order)
	var parts []string
	word := map[OutcomeKind]string{Win: "won", Replay: "marked as replays", Refusal: "refused", InFlight: "accepted for later", Error: "failed"}[k]
	for _, s := range order {
		if msg, ok := strings.CutPrefix(s, "\x00"); ok {
			parts = append(parts, countWord(counts[s])+" "+msg)
			continue
		}
		w := word
		if st, _ := strconv.Atoi(s); k == Error && st < 500 {
			w = "outside --win, --refuse and --in-flight" // an answer, not a failure
		}
		parts = append(parts, countWord(counts[s])+" "+pluralStatus(s, counts[s])+" "+w)
	}
	return strings.Join(parts, " and ")
}

func pluralStatus(s string, n int) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// countWord spells small counts the way a sentence does.
func countWord(n int) string {
	if n >= 0 && n < 10 {
		return [...]string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}[n]
	}
	return strconv.Itoa(n)
}

// successWords is "two 201s" or "a 201 and a 200" for the outcomes at idx.
func successWords(r *Round, idx []int) string {
	statuses := map[int]int{}
	for _, i := range idx {
		statuses[r.Outcomes[i].Status]++
	}
	if len(statuses) == 1 {
		for st, n := range statuses {
			return countWord(n) + " " + pluralStatus(strconv.Itoa(st), n)
		}
	}
	var parts []string
	for _, i := range idx {
		parts = append(parts, strconv.Itoa(r.Outcomes[i].Status))
	}
	return countWord(len(idx)) + " successes (" + strings.Join(parts, ", ") + ")"
}

func allSameBytes(r *Round, idx []int) bool {
	for _, i := range idx[1:] {
		a, b := &r.Outcomes[idx[0]], &r.Outcomes[i]
		if a.Status != b.Status || !bytes.Equal(a.Body, b.Body) {
			return false
		}
	}
	return true
}

// winsEvidence says why two or more unmarked successes are all wins.
func winsEvidence(r *Round, idx []int, cal *Calibration) string {
	words := successWords(r, idx)
	known := cal != nil && (cal.marker.Declared || cal.Signature.successesAreWins())
	if !allSameBytes(r, idx) {
		if known {
			return words + " with different bodies, " + winsReason(cal)
		}
		return words + " with different bodies"
	}
	return countWord(len(idx)) + " identical " + strings.TrimPrefix(words, countWord(len(idx))+" ") + ", " + winsReason(cal)
}

// unresolvedEvidence says why identical successes cannot be told apart.
func unresolvedEvidence(r *Round, idx []int, cal *Calibration) string {
	words := successWords(r, idx)
	if allSameBytes(r, idx) {
		words = countWord(len(idx)) + " identical " + strings.TrimPrefix(words, countWord(len(idx))+" ")
	} else {
		words += " with different bodies"
	}
	return words + " that cannot be told apart, " + cal.reason()
}

// disagreement compares an oracle's count with what the responses show
// and says so when they contradict each other. winsKnown is set when every
// unmarked success is a win (a declared marker, or the calibration).
func disagreement(r *Round, winsKnown bool, unmarked []int, oracle string) string {
	n := *r.Effects
	lo, hi := len(unmarked), len(unmarked)
	if !winsKnown && len(unmarked) > 0 {
		lo = 1 // identical successes may be one win and its replays
	}
	if r.Retry {
		lo = 0 // every success of a retry may be a replay
	}
	hi += r.Count(Error) + r.Count(InFlight) // an error may come after the effect, accepted work may run later
	if n >= lo && n <= hi {
		return ""
	}
	return fmt.Sprintf("%s was %d, but the responses show %s", oracle, n, orNothing(responsesEvidence(r)))
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}
