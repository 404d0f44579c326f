package pgfake

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
)

// Proxy forwards connections to a real server until a client sends a
// simple-protocol query whose text contains a marker; from then on that
// connection goes quiet in both directions, as behind a proxy that hangs
// mid-run. What the client sends after the stall is counted, not forwarded.
type Proxy struct {
	Host string
	Port int

	upstream string
	marker   []byte
	*loopback
	stalled atomic.Int64
	after   atomic.Int64
}

// StallingProxy starts a proxy to upstream ("host:port", the real server)
// that stalls a connection at its first simple query containing marker. It
// is closed when t ends.
func StallingProxy(t testing.TB, upstream, marker string) *Proxy {
	t.Helper()
	l := listen(t)
	p := &Proxy{Host: l.host, Port: l.port, upstream: upstream, marker: []byte(marker), loopback: l}
	l.serve(p.relay)
	return p
}

// Addr is where the proxy listens, "host:port".
func (p *Proxy) Addr() string { return fmt.Sprintf("%s:%d", p.Host, p.Port) }

// Stalled counts the connections that went quiet.
func (p *Proxy) Stalled() int { return int(p.stalled.Load()) }

// SentAfterStall counts the messages clients sent on stalled connections.
func (p *Proxy) SentAfterStall() int { return int(p.after.Load()) }

// relay joins one client to the upstream server.
func (p *Proxy) relay(c net.Conn) {
	up, err := net.Dial("tcp", p.upstream)
	if err != nil {
		c.Close()
		return
	}
	p.track(up)
	var quiet atomic.Bool
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer c.Close()
		forwardServer(up, c, &quiet)
	}()
	defer up.Close()
	p.forwardClient(c, up, &quiet)
}

// forwardClient copies the client's messages to the server, message by
// message, until the marker is seen.
func (p *Proxy) forwardClient(c, up net.Conn, quiet *atomic.Bool) {
	// The start-up packet (and an SSLRequest before it) has no type byte.
	for {
		var head [8]byte
		if _, err := io.ReadFull(c, head[:]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(head[:4]))
		body := make([]byte, max(n-8, 0))
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		if _, err := up.Write(append(head[:], body...)); err != nil {
			return
		}
		code := binary.BigEndian.Uint32(head[4:])
		if code != 80877103 && code != 80877104 { // SSLRequest, GSSENCRequest
			break
		}
	}
	for {
		var head [5]byte
		if _, err := io.ReadFull(c, head[:]); err != nil {
			return
		}
		body := make([]byte, max(int(binary.BigEndian.Uint32(head[1:]))-4, 0))
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		if quiet.Load() {
			p.after.Add(1)
			continue
		}
		if head[0] == 'Q' && bytes.Contains(body, p.marker) {
			quiet.Store(true)
			p.stalled.Add(1)
			continue
		}
		if _, err := up.Write(append(head[:], body...)); err != nil {
			return
		}
	}
}

// forwardServer copies the server's answers until the connection stalls,
// then reads and drops them.
func forwardServer(up, c net.Conn, quiet *atomic.Bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := up.Read(buf)
		if n > 0 && !quiet.Load() {
			if _, werr := c.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
