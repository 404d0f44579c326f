package httprace

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// Warm connections (docs/race-sync.md, "Warm connections"): with
// Probe.Warm the HTTP/1.1 rounds keep their connections alive from round
// to round, and a connection the probe has just opened first carries one
// warm-up request and its answer, so that whatever the server does once
// per connection (a thread, a database connection, the TLS handshake, a
// worker's first request) is paid before the settle, not inside the
// window. The warm-up is OPTIONS * (the server itself, no resource), or
// GET on Probe.WarmURL, with no header of the race's and no body: it
// carries no key, so even a handler it reaches has no key to perform the
// effect with.

// keptConn is one connection of the pool: its reader persists from
// response to response, so nothing the server sent is lost between them.
type keptConn struct {
	c    net.Conn
	uses int // rounds it carried
	rec  errRecorder
	lr   io.LimitedReader
	br   *bufio.Reader
}

func newKeptConn(c net.Conn) *keptConn {
	k := &keptConn{c: c}
	k.rec.r = c
	k.lr.R = &k.rec
	k.br = bufio.NewReader(&k.lr)
	return k
}

// alive reports whether the server still holds the connection open and
// has sent nothing unasked, looking at the socket without waiting where
// it can (peekNow): this runs just before a release, for connections that
// have been idle since the last round, whose close would have arrived
// long since.
func (k *keptConn) alive() bool {
	if k.br.Buffered() > 0 {
		return false
	}
	// A deadline left from the last check or round would fail the look
	// before it is taken; take sets the round's afterwards.
	_ = k.c.SetReadDeadline(time.Time{})
	if alive, ok := peekNow(k.c); ok {
		return alive
	}
	return k.aliveAfter()
}

// aliveAfter is alive for a connection that has just been answered: a
// server that closes it after its answer may send the FIN a little after
// the last byte, so the check waits aliveWait for it (a read that waits
// must time out).
func (k *keptConn) aliveAfter() bool {
	if k.br.Buffered() > 0 {
		return false
	}
	_ = k.c.SetReadDeadline(time.Now().Add(aliveWait))
	_, err := k.br.Peek(1)
	k.rec.err = nil
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// aliveWait is how long alive waits for an EOF or a stray byte.
const aliveWait = 200 * time.Microsecond

// read reads one response and reports whether the connection can carry
// another: the whole body was read and neither side asked to close.
func (k *keptConn) read() (racetest.Response, bool) {
	k.rec.err = nil
	k.lr.N = maxHead + maxBody
	resp, err := http.ReadResponse(k.br, nil)
	if err != nil {
		switch {
		case k.lr.N <= 0:
			err = fmt.Errorf("response head larger than %d bytes", maxHead+maxBody)
		case k.rec.err != nil:
			err = k.rec.err
		}
		return racetest.Response{Err: err}, false
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	resp.Body.Close()
	if err != nil {
		return racetest.Response{Status: resp.StatusCode, Err: err}, false
	}
	if len(body) > maxBody {
		return racetest.Response{Status: resp.StatusCode, Err: errBodyTooLong}, false
	}
	// A body delimited by the connection's end leaves nothing to reuse.
	reusable := !resp.Close && (resp.ContentLength >= 0 || len(resp.TransferEncoding) > 0)
	return racetest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, reusable
}

// connPool is a run's kept-alive HTTP/1.1 connections and what happened
// to them, for the note.
type connPool struct {
	conns []*keptConn
	// warmReq is the warm-up request; warmShown says what it is
	// ("OPTIONS /claims").
	warmReq   []byte
	warmShown string
	// closes is set once the server closed two warmed connections in a
	// row after its answer: it keeps no connection alive, so new ones are
	// no longer warmed (the warm-up would only cost a request).
	closes bool
	// raced is set after a round in which two or more requests were
	// classified as wins: the next round keeps every connection, since
	// that pairing reaches the race (on a prefork server, connections
	// that landed on different processes).
	raced bool
	// counts for the note
	opened, warmed, reused, lost, retired, kept int
	warmStatus                                  int // the status of the last warm-up answer
}

// newConnPool prepares the warm-up request for target t: GET warmURL when
// given (which must be on t's scheme, host and port), OPTIONS * otherwise,
// which names no resource of the application (Go's server and nginx answer
// it themselves, without a handler).
func newConnPool(t target, warmURL string) (*connPool, error) {
	method, path := http.MethodOptions, "*"
	if warmURL != "" {
		w, err := parseTarget(warmURL)
		if err != nil {
			return nil, fmt.Errorf("--warm-url: %v", err)
		}
		if w.tls != t.tls || w.addr != t.addr {
			return nil, fmt.Errorf("--warm-url %s: want a URL on the target's own scheme, host and port (%s), since it warms the same connections", warmURL, t.addr)
		}
		method, path = http.MethodGet, w.requestPath
	}
	req := method + " " + path + " HTTP/1.1\r\nHost: " + t.host + "\r\nUser-Agent: idemcheck-race\r\n\r\n"
	return &connPool{warmReq: []byte(req), warmShown: method + " " + path}, nil
}

// take returns n live connections for a round: the kept ones the server
// still holds open, then new ones (the first round, or after the server
// closed some), each warmed, with the round's deadline set. Nothing in it
// waits when the kept connections suffice: the connection a round retires
// is replaced after that round (refill), so that the server is not left
// idle just before the release.
func (pl *connPool) take(ctx context.Context, p *Probe, t target, n int) ([]*keptConn, error) {
	var live, rest []*keptConn
	for _, k := range pl.conns {
		switch {
		case !k.alive():
			k.c.Close()
			pl.lost++
		case len(live) < n:
			live = append(live, k)
			if k.uses > 0 { // not one refill opened after the last round
				pl.reused++
			}
		default:
			rest = append(rest, k) // kept for a later round
		}
	}
	pl.conns = rest
	for len(live) < n {
		k, err := pl.open(ctx, p, t)
		if err != nil {
			closeKept(live)
			return nil, err
		}
		live = append(live, k)
	}
	d := connDeadline(ctx, p)
	for _, k := range live {
		_ = k.c.SetDeadline(d)
		k.uses++
	}
	return live, nil
}

// refill runs after a round, once it is known whether the round raced.
// One connection, the one that carried the most rounds, is retired for a
// fresh one, warmed like the others: a server that hands each connection
// to one of several processes (SO_REUSEPORT, a prefork server) then sees
// its requests paired anew every round, where N connections kept for the
// whole run could all have landed on one process and never race across
// two. A pairing whose round had two wins or more is kept as it is
// (win-stay, lose-shift). A connection that cannot be opened here is left
// to the next take, which opens what is missing and says why it could not.
func (pl *connPool) refill(ctx context.Context, p *Probe, t target, n int) {
	if n < 2 || len(pl.conns) < n {
		return
	}
	if pl.raced {
		pl.kept++
		return
	}
	oldest := 0
	for i, k := range pl.conns {
		if k.uses > pl.conns[oldest].uses {
			oldest = i
		}
	}
	pl.conns[oldest].c.Close()
	pl.conns = append(pl.conns[:oldest], pl.conns[oldest+1:]...)
	pl.retired++
	if k, err := pl.open(ctx, p, t); err == nil {
		pl.conns = append(pl.conns, k)
	}
}

// open dials a connection and warms it. A server that closes the
// connection after answering the warm-up gets a fresh connection, warmed
// again; when it closes that one too, it keeps nothing alive, and the
// connection goes unwarmed.
func (pl *connPool) open(ctx context.Context, p *Probe, t target) (*keptConn, error) {
	for range 2 {
		if pl.closes {
			break
		}
		k, err := pl.dial(ctx, p, t)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if _, err := k.c.Write(pl.warmReq); err == nil {
			r, reusable := k.read()
			if r.Err != nil {
				if stop := stoppedAnswering(ctx, p, "the warm-up request ("+pl.warmShown+")", start, r.Err); stop != nil {
					k.c.Close()
					return nil, stop
				}
			}
			if r.Err == nil {
				pl.warmStatus = r.Status
				pl.warmed++
				if reusable && k.aliveAfter() {
					return k, nil
				}
			}
		}
		k.c.Close()
	}
	pl.closes = true
	return pl.dial(ctx, p, t)
}

func (pl *connPool) dial(ctx context.Context, p *Probe, t target) (*keptConn, error) {
	c, err := dial(ctx, p, t, []string{"http/1.1"})
	if err != nil {
		return nil, err
	}
	pl.opened++
	return newKeptConn(c), nil
}

// give takes back a round's connections: those that can carry another
// request are kept for the next round, the others closed.
func (pl *connPool) give(conns []*keptConn, reusable []bool) {
	for i, k := range conns {
		if reusable[i] {
			pl.conns = append(pl.conns, k)
		} else {
			k.c.Close()
		}
	}
}

// close closes every kept connection.
func (pl *connPool) close() {
	closeKept(pl.conns)
	pl.conns = nil
}

func closeKept(conns []*keptConn) {
	for _, k := range conns {
		k.c.Close()
	}
}

// note says what the pool did over the run.
func (pl *connPool) note() string {
	if pl.opened == 0 {
		return ""
	}
	s := fmt.Sprintf("warm connections: %d opened", pl.opened)
	if pl.warmed > 0 {
		s += fmt.Sprintf(", %d warmed by %s (last answer %d) before their first round", pl.warmed, pl.warmShown, pl.warmStatus)
	}
	s += fmt.Sprintf(", %d reused from the round before", pl.reused)
	if pl.retired > 0 {
		s += fmt.Sprintf(", %d retired for a fresh one (one after each round without two wins, so that a prefork server pairs the requests anew)", pl.retired)
	}
	if pl.kept > 0 {
		s += fmt.Sprintf(", %d rounds kept the pairing of a round before that had two wins or more", pl.kept)
	}
	if pl.lost > 0 {
		s += fmt.Sprintf(", %d closed by the server between rounds and replaced", pl.lost)
	}
	if pl.closes {
		s += "; the server closed the connection after answering the warm-up, twice, so it keeps none alive and later connections were not warmed"
	}
	return s
}
