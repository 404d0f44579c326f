package httprace

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"golang.org/x/net/http2"
)

// SinkReport is how HTTP/2 release blocks arrived at a raw sink.
type SinkReport struct {
	Batches    int
	SingleRead int // batches whose whole release block came in one read
	BlockBytes int
}

// MeasureSinglePacket sends batches of n HTTP/2 streams to a raw loopback
// sink that answers the handshake and then only reads, and counts the
// batches whose release block arrived in a single read. With perFrame set
// the release is written one frame per Write call instead, for contrast.
func MeasureSinglePacket(ctx context.Context, n, batches int, settle time.Duration, perFrame bool) (SinkReport, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return SinkReport{}, err
	}
	defer ln.Close()
	rep := SinkReport{Batches: batches}
	p := &Probe{N: n, Settle: settle, Timeout: 5 * time.Second}
	r := request{method: "POST", target: target{host: ln.Addr().String(), addr: ln.Addr().String(), requestPath: "/claims"},
		header: []Header{{Name: KeyHeader, Value: "idemcheck-sink-0000"}}, body: []byte(`{"round":1}`)}
	for range batches {
		single, size, err := sinkBatch(ctx, ln, p, r, perFrame)
		if err != nil {
			return rep, err
		}
		rep.BlockBytes = size
		if single {
			rep.SingleRead++
		}
	}
	return rep, nil
}

// sinkBatch runs one batch: the client tells the sink how many handshake
// bytes it wrote, the sink reads exactly those and says so, and then the
// client writes the release and the sink reports the size of its next
// read.
func sinkBatch(ctx context.Context, ln net.Listener, p *Probe, r request, perFrame bool) (bool, int, error) {
	handshakeLen := make(chan int, 1)
	drained := make(chan struct{})
	firstRead := make(chan int, 1)
	go serveSink(ln, handshakeLen, drained, firstRead)
	raw, err := dial(ctx, p, r.target, nil)
	if err != nil {
		return false, 0, err
	}
	defer raw.Close()
	c := &countingConn{Conn: raw}
	fr := http2.NewFramer(c, c)
	if _, err := h2Handshake(c, fr); err != nil {
		return false, 0, err
	}
	handshakeLen <- c.written
	<-drained
	_, release, err := h2Blocks(r, p.N, SplitHeaders, 16384)
	if err != nil {
		return false, 0, err
	}
	sleepCtx(ctx, p.Settle)
	if perFrame {
		err = writeFrameByFrame(raw, release)
	} else {
		_, err = raw.Write(release)
	}
	if err != nil {
		return false, 0, err
	}
	got := <-firstRead
	return got == len(release), len(release), nil
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
