package idemtest

import (
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/idemtest/internal/core"
)

// Handler races h as HTTP does a URL. It serves h on a loopback listener
// for the length of the race, so the whole HTTP stack is covered: the
// server parses each request, runs the middleware and the routing, and
// reads the body, as in production. The requests go to the path and query
// of req's URL (httptest.NewRequest's "/charges" will do). What the
// server logs (a handler's panic) goes to t.Log. The failure stops the
// test; CheckHandler lets it go on.
func Handler(t testing.TB, h http.Handler, req *http.Request, opts ...Option) *Result {
	t.Helper()
	return race(t, core.Require, "idemtest.Handler", true, h, req, opts)
}

// CheckHandler is Handler that marks the test failed (t.Error) and lets it
// go on, returning the result for further assertions.
func CheckHandler(t testing.TB, h http.Handler, req *http.Request, opts ...Option) *Result {
	t.Helper()
	return race(t, core.Check, "idemtest.CheckHandler", true, h, req, opts)
}

// server is the handler under test on a loopback listener.
type server struct {
	srv *httptest.Server
	url *url.URL
	log *testLog
}

func serve(t testing.TB, h http.Handler) *server {
	srv := httptest.NewUnstartedServer(h)
	tl := &testLog{t: t}
	srv.Config.ErrorLog = log.New(tl, "", 0)
	srv.Start()
	u, _ := url.Parse(srv.URL)
	return &server{srv: srv, url: u, log: tl}
}

// closeWait bounds how long close waits for handlers still running.
const closeWait = 10 * time.Second

// close stops the server and waits for its handlers. A handler still
// running closeWait after the race (stuck on a lock, say) fails the test
// instead of hanging it.
func (s *server) close(t testing.TB) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		s.srv.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(closeWait):
		t.Errorf("idemtest: the handler was still running %s after the race ended", closeWait)
	}
	s.log.stop()
}

// retarget sends built requests to the loopback server, keeping their
// path, query and Host header.
func retarget(build func(string) (*http.Request, error), base *url.URL) func(string) (*http.Request, error) {
	return func(key string) (*http.Request, error) {
		r, err := build(key)
		if err != nil {
			return nil, err
		}
		u := *r.URL
		u.Scheme, u.Host, u.User = base.Scheme, base.Host, nil
		if u.Path == "" && u.Opaque == "" {
			u.Path = "/"
		}
		r.URL = &u
		return r, nil
	}
}

// testLog writes the server's log to t.Log until stop: a handler that
// outlives the test must not log into a finished test.
type testLog struct {
	mu      sync.Mutex
	t       testing.TB
	stopped bool
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopped {
		l.t.Logf("idemtest: the handler's server: %s", strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

func (l *testLog) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
}
