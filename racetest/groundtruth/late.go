package groundtruth

import (
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Late says how a LateDuplicate's duplicate misbehaves after it passed
// the check.
type Late int

const (
	// AnswersLate: the duplicate waits LateDelay, then performs the effect
	// and answers 201, long after a client with a shorter timeout gave up.
	AnswersLate Late = iota
	// Resets: the duplicate resets its connection without an answer and
	// performs the effect ResetDelay later.
	Resets
	// NeverAnswers: the duplicate performs the effect and never answers
	// (it waits until the client closes the connection).
	NeverAnswers
	// AcceptsThenPerforms: the duplicate answers 202 {"status":"processing"}
	// at once, as a sound gate does for a request in flight, and performs
	// the effect ResetDelay later anyway.
	AcceptsThenPerforms
)

// LateDelay and ResetDelay are when a LateDuplicate's duplicate performs
// its effect after its check.
const (
	LateDelay  = 3 * time.Second
	ResetDelay = 200 * time.Millisecond
)

// LateDuplicate is a read-check-write gate whose duplicate (a request
// whose key is already in flight when it arrives) gets through too, but
// answers late, resets or never answers, as Late says: every round's key
// gets two effects, and only one answer says so. A key whose request has
// finished gets 409, so the calibration sees a server that refuses
// retries.
type LateDuplicate struct {
	Counter
	Late   Late
	mu     sync.Mutex
	flying map[string]bool
}

func (g *LateDuplicate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Reading the body lets the server watch the connection, so that the
	// request's context ends when the client closes it.
	_, _ = io.Copy(io.Discard, r.Body)
	key := r.Header.Get(KeyHeader)
	if n, _ := g.Count(r.Context(), key); n > 0 {
		reply(w, http.StatusConflict, `{"error":"key already used"}`)
		return
	}
	g.mu.Lock()
	if g.flying == nil {
		g.flying = map[string]bool{}
	}
	duplicate := g.flying[key]
	g.flying[key] = true
	g.mu.Unlock()
	if !duplicate {
		time.Sleep(Window)
		g.add(key)
		reply(w, http.StatusCreated, `{"status":"charged"}`)
		return
	}
	switch g.Late {
	case AnswersLate:
		time.Sleep(LateDelay)
		g.add(key)
		reply(w, http.StatusCreated, `{"status":"charged"}`)
	case Resets:
		if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // RST, not FIN
			}
			c.Close()
		}
		time.Sleep(ResetDelay)
		g.add(key)
	case NeverAnswers:
		g.add(key)
		<-r.Context().Done()
	case AcceptsThenPerforms:
		reply(w, http.StatusAccepted, `{"status":"processing"}`)
		time.AfterFunc(ResetDelay, func() { g.add(key) })
	}
}
