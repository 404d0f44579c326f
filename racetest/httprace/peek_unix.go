//go:build linux || darwin || freebsd

package httprace

import (
	"crypto/tls"
	"errors"
	"net"
	"syscall"
)

// peekNow looks at connection c's socket without waiting: whether the
// server has closed it (EOF, a reset) or sent something unasked, which
// either way retires it, or neither, which keeps it. ok is false where the
// socket cannot be reached (not TCP), and then nothing was looked at.
//
// It is what lets a kept connection be checked just before a release
// without leaving the server quiet: a read with a short deadline costs at
// least a millisecond on Linux (the poller's timeout is in milliseconds),
// and that millisecond before the release cost a third of the catch rate
// against Go's server (docs/race-sync.md, "Checking kept connections
// without waiting").
func peekNow(c net.Conn) (alive, ok bool) {
	if tc, isTLS := c.(*tls.Conn); isTLS {
		// A byte on the TCP socket under TLS is a record nobody asked
		// for (an alert, close_notify): the connection is retired.
		c = tc.NetConn()
	}
	sc, isSys := c.(syscall.Conn)
	if !isSys {
		return false, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false, false
	}
	var n int
	var rerr error
	var buf [1]byte
	if err := raw.Read(func(fd uintptr) bool {
		n, _, rerr = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true // never wait: the answer is now or not at all
	}); err != nil {
		return false, true
	}
	switch {
	case errors.Is(rerr, syscall.EAGAIN) || errors.Is(rerr, syscall.EWOULDBLOCK):
		return true, true // open, and nothing waiting
	case rerr == nil && n == 0:
		return false, true // EOF: the server closed it
	default:
		return false, true // a byte unasked, or a reset
	}
}
