package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/httprace"
	"golang.org/x/net/http2"
)

// sinkReport is how HTTP/2 release blocks arrived at a raw sink.
type sinkReport struct {
	batches    int
	singleRead int // batches whose whole release block came in one read
	blockBytes int
}

// measureSinglePacket sends batches of n HTTP/2 streams to a raw loopback
// sink that answers the handshake and then only reads, and counts the
// batches whose release block arrived in a single read. The frames are the
// probe's own (httprace.ReleaseBlock, in headers mode). With perFrame set
// the release is written one frame per Write call instead, for contrast.
func measureSinglePacket(ctx context.Context, n, batches int, settle time.Duration, perFrame bool) (sinkReport, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return sinkReport{}, err
	}
	defer ln.Close()
	rep := sinkReport{batches: batches}
	p := &httprace.Probe{Method: http.MethodPost, URL: racetest.Template("http://" + ln.Addr().String() + "/claims"), N: n,
		Split:  httprace.SplitHeaders,
		Header: []httprace.Header{{Name: httprace.KeyHeader, Value: "idemcheck-sink-0000"}}, Body: `{"round":1}`}
	release, err := httprace.ReleaseBlock(p, racetest.RoundValues{}, 16384)
	if err != nil {
		return rep, err
	}
	rep.blockBytes = len(release)
	for range batches {
		single, err := sinkBatch(ctx, ln, release, settle, perFrame)
		if err != nil {
			return rep, err
		}
		if single {
			rep.singleRead++
		}
	}
	return rep, nil
}

// sinkBatch runs one batch: the client tells the sink how many handshake
// bytes it wrote, the sink reads exactly those and says so, and then the
// client writes the release and the sink reports the size of its next
// read.
func sinkBatch(ctx context.Context, ln net.Listener, release []byte, settle time.Duration, perFrame bool) (bool, error) {
	handshakeLen := make(chan int, 1)
	drained := make(chan struct{})
	firstRead := make(chan int, 1)
	go serveSink(ln, handshakeLen, drained, firstRead)
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		return false, err
	}
	defer raw.Close()
	if err := raw.SetDeadline(time.Now().Add(settle + 5*time.Second)); err != nil {
		return false, err
	}
	c := &countingConn{Conn: raw}
	if err := httprace.Handshake(c); err != nil {
		return false, err
	}
	handshakeLen <- c.written
	<-drained
	time.Sleep(settle)
	if perFrame {
		err = writeFrameByFrame(raw, release)
	} else {
		_, err = raw.Write(release)
	}
	if err != nil {
		return false, err
	}
	got := <-firstRead
	return got == len(release), nil
}

// countingConn counts the bytes written through it.
type countingConn struct {
	net.Conn
	written int
}

func (c *countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.written += n
	return n, err
}

// serveSink accepts one connection, sends an empty SETTINGS frame, reads
// the client's handshake, then reports the size of the read that follows.
func serveSink(ln net.Listener, handshakeLen <-chan int, drained chan<- struct{}, firstRead chan<- int) {
	defer close(firstRead)
	c, err := ln.Accept()
	if err != nil {
		close(drained)
		return
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	_ = http2.NewFramer(c, c).WriteSettings()
	want := <-handshakeLen
	buf := make([]byte, 1<<16)
	for got := 0; got < want; {
		n, err := c.Read(buf[:want-got])
		if err != nil {
			close(drained)
			return
		}
		got += n
	}
	close(drained)
	n, _ := c.Read(buf)
	firstRead <- n
	// Drain the rest, so a release written frame by frame does not hit a
	// closed socket.
	_, _ = io.Copy(io.Discard, c)
}

// writeFrameByFrame writes each frame of block with its own Write call.
func writeFrameByFrame(c net.Conn, block []byte) error {
	for len(block) >= 9 {
		size := 9 + (int(block[0])<<16 | int(block[1])<<8 | int(block[2]))
		if size > len(block) {
			return fmt.Errorf("truncated frame in release block")
		}
		if _, err := c.Write(block[:size]); err != nil {
			return err
		}
		block = block[size:]
	}
	return nil
}
