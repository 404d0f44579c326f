package pgfake

import (
	"net"
	"sync"
	"testing"
)

// loopback accepts connections on 127.0.0.1 and keeps them, so that Close
// (run when the test ends) drops every one and waits for their goroutines.
type loopback struct {
	host   string
	port   int
	ln     net.Listener
	connMu sync.Mutex
	all    []net.Conn
	wg     sync.WaitGroup
}

func listen(t testing.TB) *loopback {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgfake: listen: %v", err)
	}
	l := &loopback{host: "127.0.0.1", port: ln.Addr().(*net.TCPAddr).Port, ln: ln}
	t.Cleanup(l.Close)
	return l
}

// serve hands each connection to handle, in a goroutine of its own.
func (l *loopback) serve(handle func(net.Conn)) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for {
			c, err := l.ln.Accept()
			if err != nil {
				return
			}
			l.track(c)
			l.wg.Add(1)
			go func() {
				defer l.wg.Done()
				handle(c)
			}()
		}
	}()
}

// track keeps c to be closed with the rest.
func (l *loopback) track(c net.Conn) {
	l.connMu.Lock()
	l.all = append(l.all, c)
	l.connMu.Unlock()
}

// Close stops listening and drops every connection.
func (l *loopback) Close() {
	l.ln.Close()
	l.connMu.Lock()
	for _, c := range l.all {
		c.Close()
	}
	l.connMu.Unlock()
	l.wg.Wait()
}
