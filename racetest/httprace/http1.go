package httprace

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// spinBeforeRelease is how long the release goroutines spin, at most,
// before the tails are released.
const spinBeforeRelease = 2 * time.Millisecond

// h1Bytes writes the request as HTTP/1.1 and returns where to split it:
// head is written early, tail is withheld until the release.
func h1Bytes(r request, split string, keepAlive bool) (head, tail []byte) {
	var b bytes.Buffer
	b.WriteString(r.method + " " + r.target.requestPath + " HTTP/1.1\r\n")
	b.WriteString("Host: " + r.target.host + "\r\n")
	hasUA := false
	for _, h := range r.header {
		hasUA = hasUA || http.CanonicalHeaderKey(h.Name) == "User-Agent"
		b.WriteString(h.Name + ": " + string(h.Value) + "\r\n")
	}
	if !hasUA {
		b.WriteString("User-Agent: idemcheck-race\r\n")
	}
	if len(r.body) > 0 || r.method == http.MethodPost || r.method == http.MethodPut || r.method == http.MethodPatch {
		b.WriteString("Content-Length: " + strconv.Itoa(len(r.body)) + "\r\n")
	}
	if !keepAlive {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	headerEnd := b.Len()
	b.Write(r.body)
	all := b.Bytes()
	cut := len(all) - 1 // last-byte: withhold only the final byte
	switch split {
	case SplitHeaders:
		cut = headerEnd - 1 // withhold the final \n of \r\n\r\n and the body
	case SplitNone:
		cut = 0 // withhold everything: the whole request is the release
	}
	return all[:cut], all[cut:]
}

// burstH1 opens N connections (or takes them warm from p.pool), writes
// every head, lets them settle, then releases every tail as p.Release says
// and reads every response. round rotates the order of the locked-thread
// release.
func burstH1(ctx context.Context, p *Probe, r request, round int) (burst, error) {
	pool := p.pool
	head, tail := h1Bytes(r, p.Split, pool != nil)
	var conns []net.Conn
	var kept []*keptConn
	var reusable []bool
	if pool != nil {
		var err error
		if kept, err = pool.take(ctx, p, r.target, p.N); err != nil {
			return burst{}, err
		}
		reusable = make([]bool, p.N)
		defer func() { pool.give(kept, reusable) }()
		for _, k := range kept {
			conns = append(conns, k.c)
		}
	} else {
		var err error
		if conns, err = openAll(ctx, p, r.target); err != nil {
			return burst{}, err
		}
		defer closeAll(conns)
	}
	var err error
	var wake net.Conn
	// One request has nothing to land with: it is released as by thread.
	if p.Release == ReleaseWake && p.N > 1 {
		if wake, err = dial(ctx, p, r.target, []string{"http/1.1"}); err != nil {
			return burst{}, err
		}
		defer wake.Close()
		// A request that is never finished: the server reads its line and
		// waits for the rest, which never comes. OPTIONS * names no route,
		// and Go's server answers it itself should it ever complete.
		_, _ = wake.Write([]byte("OPTIONS * HTTP/1.1\r\nHost: " + r.target.host + "\r\n"))
	}
	b := burst{responses: make([]racetest.Response, p.N), elapsed: make([]time.Duration, p.N)}
	headErr := make([]error, p.N)
	settle := p.Settle
	if len(head) == 0 {
		settle = 0 // nothing was written early, so nothing has to settle
	} else {
		for i, c := range conns {
			_, headErr[i] = c.Write(head)
		}
	}
	// Spinning release goroutines wait parked for most of the settle and
	// spin for its last stretch, so that at the release every one of them
	// is already running on a thread: waking parked goroutines costs a
	// thread wake-up each, which on a small machine is the largest part of
	// the spread.
	spin := time.Duration(0)
	if p.Release != ReleaseThread && p.Release != ReleaseWake && p.Release != ReleaseParked {
		spin = min(settle/2, spinBeforeRelease) // the spinning release, as below
	}
	if !sleepCtx(ctx, settle-spin) {
		// The run's deadline passed before the release: nothing was
		// released, and nothing can be said about this round.
		for i := range b.responses {
			b.responses[i] = racetest.Response{Err: ctx.Err()}
		}
		return b, nil
	}

	released := make([]time.Time, p.N)
	// sent is when each tail's write began: a response's time is taken
	// from it, so that the probe's own thread being preempted between the
	// write and the clock can only lengthen the time, never shorten it.
	sent := make([]time.Time, p.N)
	answered := make([]time.Time, p.N)
	var done sync.WaitGroup
	// read reads connection i's response once its tail is out.
	read := func(i int) {
		if kept != nil {
			b.responses[i], reusable[i] = kept[i].read()
		} else {
			b.responses[i] = readH1(conns[i])
		}
		answered[i] = time.Now()
	}
	// write writes connection i's tail; it reports whether a response is
	// to be read.
	write := func(i int) bool {
		if headErr[i] != nil {
			b.responses[i] = racetest.Response{Err: headErr[i]}
			released[i] = time.Now()
			return false
		}
		sent[i] = time.Now()
		_, err := conns[i].Write(tail)
		released[i] = time.Now()
		if err != nil {
			b.responses[i] = racetest.Response{Err: err}
			return false
		}
		return true
	}
	switch p.Release {
	case ReleaseThread:
		releaseThread(p.N, round, nil, write, read, &done)
	case ReleaseWake:
		releaseThread(p.N, round, wake, write, read, &done)
	case ReleaseParked:
		start := make(chan struct{})
		for i := range conns {
			done.Add(1)
			go func() {
				defer done.Done()
				<-start
				if write(i) {
					read(i)
				}
			}()
		}
		close(start)
	default:
		var fire atomic.Bool
		var ready sync.WaitGroup
		for i := range conns {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				ready.Done()
				for !fire.Load() {
					runtime.Gosched()
				}
				if write(i) {
					read(i)
				}
			}()
		}
		ready.Wait()
		time.Sleep(spin)
		fire.Store(true)
	}
	done.Wait()
	for i := range answered {
		if !answered[i].IsZero() {
			b.elapsed[i] = answered[i].Sub(sent[i])
		}
	}
	b.spread = racetest.SpreadOf(released)
	b.released = released
	return b, nil
}

// releaseThread writes every tail from one goroutine locked to its OS
// thread, back to back, starting with a different connection each round
// so that no request is always first; readers wait on their connections
// meanwhile. With wake set it first writes one more header line to that
// connection's unfinished request: a server asleep in its poller wakes for
// it, and by the time it polls again every tail is there to be found in
// the same poll (docs/race-sync.md, "Why a Go server misses").
func releaseThread(n, round int, wake net.Conn, write func(int) bool, read func(int), done *sync.WaitGroup) {
	ok := make([]chan bool, n)
	for i := range n {
		ok[i] = make(chan bool, 1)
		done.Add(1)
		go func() {
			defer done.Done()
			if <-ok[i] {
				read(i)
			}
		}()
	}
	wrote := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		res := make([]bool, n)
		if wake != nil {
			_, _ = wake.Write([]byte("X-Idemcheck-Wake: 1\r\n"))
		}
		for j := range n {
			i := (j + round) % n
			res[i] = write(i)
		}
		for i := range n {
			ok[i] <- res[i]
		}
		close(wrote)
	}()
	<-wrote
}

// openAll dials N connections; any failure closes the ones already open.
func openAll(ctx context.Context, p *Probe, t target) ([]net.Conn, error) {
	conns := make([]net.Conn, 0, p.N)
	for range p.N {
		c, err := dial(ctx, p, t, []string{"http/1.1"})
		if err != nil {
			closeAll(conns)
			return nil, err
		}
		conns = append(conns, c)
	}
	return conns, nil
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		c.Close()
	}
}

func readH1(c net.Conn) racetest.Response { return readH1From(c) }

// maxHead bounds the status line and headers of one response. With
// maxBody it caps how much of a connection is ever read, so a server that
// streams endless headers or an endless body can neither grow memory nor,
// when the body is closed, keep the reader draining until the deadline.
const maxHead = 1 << 20

// errBodyTooLong is the outcome of a response whose body passes maxBody. It
// is an error, not a win: the response never finished as far as the probe
// saw, and two bodies cut at the same length would look like a replay.
var errBodyTooLong = fmt.Errorf("response body longer than %d bytes; stopped reading", maxBody)

// readH1From reads one HTTP/1.1 response from r, refusing a body longer
// than maxBody.
func readH1From(r io.Reader) racetest.Response {
	conn := &errRecorder{r: r}
	limited := &io.LimitedReader{R: conn, N: maxHead + maxBody}
	resp, err := http.ReadResponse(bufio.NewReader(limited), nil)
	if err != nil {
		switch {
		case limited.N <= 0:
			err = fmt.Errorf("response head larger than %d bytes", maxHead+maxBody)
		case conn.err != nil:
			err = conn.err
		}
		return racetest.Response{Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return racetest.Response{Status: resp.StatusCode, Err: err}
	}
	if len(body) > maxBody {
		return racetest.Response{Status: resp.StatusCode, Err: errBodyTooLong}
	}
	return racetest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// errRecorder keeps the connection's first read error other than EOF. bufio's
// ReadLine drops an error that comes after part of a line, so a deadline in
// the middle of a slowly sent status line would otherwise read as a
// "malformed HTTP response" instead of the timeout it is.
type errRecorder struct {
	r   io.Reader
	err error
}

func (e *errRecorder) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// sleepCtx waits d or until ctx ends; it reports whether the full wait
// happened.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
