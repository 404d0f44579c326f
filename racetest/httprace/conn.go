package httprace

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// target is a parsed request URL.
type target struct {
	tls         bool
	host        string // Host header value
	addr        string // host:port to dial
	serverName  string
	requestPath string // path and query
}

func parseTarget(raw string) (target, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return target{}, fmt.Errorf("URL %q: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return target{}, fmt.Errorf("URL %q: want an http:// or https:// URL", raw)
	}
	if u.Host == "" {
		return target{}, fmt.Errorf("URL %q has no host", raw)
	}
	t := target{tls: u.Scheme == "https", host: u.Host, serverName: u.Hostname()}
	port := u.Port()
	if port == "" {
		port = "80"
		if t.tls {
			port = "443"
		}
	}
	t.addr = net.JoinHostPort(u.Hostname(), port)
	t.requestPath = u.RequestURI()
	return t, nil
}

// targetIsLocal reports whether raw's host is this machine: a loopback
// address, localhost, or a name that resolves to loopback addresses only.
func targetIsLocal(ctx context.Context, raw string) bool {
	t, err := parseTarget(raw)
	if err != nil {
		return false
	}
	host := t.serverName
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil || len(addrs) == 0 {
		return false
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return false
		}
	}
	return true
}

// connDeadline is the earlier of the run's deadline and now plus the time a
// request may take after its head was written (settle + timeout).
func connDeadline(ctx context.Context, p *Probe) time.Time {
	d := time.Now().Add(p.Settle + p.Timeout)
	if dl, ok := ctx.Deadline(); ok && dl.Before(d) {
		d = dl
	}
	return d
}

// dial opens one connection to t with its deadline set, finishing the TLS
// handshake (offering protos by ALPN) before it returns.
func dial(ctx context.Context, p *Probe, t target, protos []string) (net.Conn, error) {
	start, deadline := time.Now(), connDeadline(ctx, p)
	d := net.Dialer{Deadline: deadline}
	c, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		if stop := stoppedAnswering(ctx, p, "connecting to "+t.addr, start, err); stop != nil {
			return nil, stop
		}
		return nil, fmt.Errorf("%w to %s: %v", racetest.ErrNoConnection, t.addr, err)
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	if err := c.SetDeadline(deadline); err != nil {
		c.Close()
		return nil, err
	}
	if !t.tls {
		return c, nil
	}
	tc := tls.Client(c, &tls.Config{
		ServerName:         t.serverName,
		InsecureSkipVerify: p.Insecure, // only with --insecure, for self-signed test servers
		NextProtos:         protos,
		// One Write of a release block must leave as one record: with
		// dynamic sizing, the first records after a handshake are cut at
		// about one MSS.
		DynamicRecordSizingDisabled: true,
	})
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		if stop := stoppedAnswering(ctx, p, "the TLS handshake with "+t.addr, start, err); stop != nil {
			return nil, stop
		}
		return nil, fmt.Errorf("%w: TLS handshake with %s: %v (use --insecure for a self-signed certificate)", racetest.ErrNoConnection, t.addr, err)
	}
	return tc, nil
}

// stoppedAnswering is the StopError for a wait on the target that timed
// out in phase (begun at start), or nil when err is no timeout, or when
// the run's deadline cut it short (that is the run ending, not the target
// stopping).
func stoppedAnswering(ctx context.Context, p *Probe, phase string, start time.Time, err error) error {
	if !racetest.IsTimeout(err) || runOver(ctx) {
		return nil
	}
	return &racetest.StopError{Phase: phase, Elapsed: time.Since(start),
		Err: fmt.Errorf("no answer within --timeout %s: the target stopped answering", p.Timeout)}
}
