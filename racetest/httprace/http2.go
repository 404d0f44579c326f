package httprace

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// onePacket is about what fits in one packet on a real network; a release
// block larger than this may leave in several and lose the single-packet
// guarantee.
const onePacket = 1400

// maxRecord is the largest TLS record payload: a release block above it is
// split into several records.
const maxRecord = 16 << 10

// ourWindow is the receive window we announce so responses never stall on
// flow control.
const ourWindow = 1 << 20

// h2Peer is what the server's SETTINGS allow.
type h2Peer struct {
	maxStreams   uint32
	streamWindow uint32
	connWindow   int64
	maxFrame     uint32
}

// burstH2 sends N streams on one connection: the pre-block (every HEADERS
// frame, and in last-byte mode all DATA but each body's last byte) first,
// then after the settle time every withheld frame in one Write, so the whole release
// leaves in one packet (one TLS record under TLS). One goroutine owns the
// connection and its Framer throughout.
func burstH2(ctx context.Context, p *Probe, r request) (burst, []string, error) {
	opened := time.Now()
	c, err := dialH2(ctx, p, r.target)
	if err != nil {
		return burst{}, nil, err
	}
	defer c.Close()
	fr := http2.NewFramer(c, c)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	fr.MaxHeaderListSize = 1 << 20
	peer, err := h2Handshake(c, fr)
	if err != nil {
		if stop := stoppedAnswering(ctx, p, "the HTTP/2 handshake with "+r.target.addr, opened, err); stop != nil {
			return burst{}, nil, stop
		}
		return burst{}, nil, fmt.Errorf("%w: HTTP/2 handshake with %s: %v", racetest.ErrNoConnection, r.target.addr, err)
	}
	if err := peer.admits(p.N, len(r.body)); err != nil {
		return burst{}, nil, err
	}
	pre, release, err := h2Blocks(r, p.N, p.Split, p.H2, peer.maxFrame)
	if err != nil {
		return burst{}, nil, err
	}
	var warn []string
	if len(release) > onePacket {
		warn = append(warn, fmt.Sprintf("the HTTP/2 release block is %d bytes, more than one packet (about %d bytes) on a real network; fewer requests (-n) or smaller headers keep it in one", len(release), onePacket))
	}
	if r.target.tls && len(release) > maxRecord {
		warn = append(warn, fmt.Sprintf("the HTTP/2 release block is %d bytes, more than one TLS record (%d bytes) holds", len(release), maxRecord))
	}
	if len(pre) > 0 {
		if _, err := c.Write(pre); err != nil {
			return burst{}, warn, fmt.Errorf("%w: writing the HTTP/2 streams: %v", racetest.ErrNoConnection, err)
		}
	}
	sleepCtx(ctx, p.Settle)
	start := time.Now()
	_, werr := c.Write(release)
	end := time.Now()
	b := burst{responses: make([]racetest.Response, p.N), elapsed: make([]time.Duration, p.N), spread: end.Sub(start), released: make([]time.Time, p.N)}
	for i := range b.released {
		b.released[i] = end // one write released every stream
	}
	if werr != nil {
		for i := range b.responses {
			b.responses[i] = racetest.Response{Err: werr}
		}
		return b, warn, nil
	}
	// Times are taken from the start of the release write, so that a
	// preemption between the write and the clock cannot shorten them.
	readH2Responses(c, fr, &b, start)
	return b, warn, nil
}

// Handshake does the client's side of an HTTP/2 connection on c as the
// burst does: the preface, our SETTINGS and window, then it reads until the
// server's SETTINGS arrive and acknowledges them. With ReleaseBlock it lets
// the benchmark measure the probe's own frames at a raw sink.
func Handshake(c net.Conn) error {
	_, err := h2Handshake(c, http2.NewFramer(c, c))
	return err
}

// ReleaseBlock is what the HTTP/2 burst withholds and then writes in one
// Write: the frames of p.N streams of p's request rendered with v, split as
// p.Split says, for a server that allows frames of maxFrame bytes.
func ReleaseBlock(p *Probe, v racetest.RoundValues, maxFrame uint32) ([]byte, error) {
	r, err := renderRequest(p, v)
	if err != nil {
		return nil, err
	}
	_, release, err := h2Blocks(r, p.N, p.Split, p.H2, maxFrame)
	return release, err
}

// dialH2 connects with ALPN h2 under TLS, or cleartext with prior
// knowledge (h2c).
func dialH2(ctx context.Context, p *Probe, t target) (net.Conn, error) {
	c, err := dial(ctx, p, t, []string{"h2"})
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*tls.Conn); ok && tc.ConnectionState().NegotiatedProtocol != "h2" {
		c.Close()
		return nil, fmt.Errorf("%w: %s did not agree to HTTP/2 by ALPN; use --sync h1", racetest.ErrNoConnection, t.addr)
	}
	return c, nil
}

// h2Handshake writes the preface and our settings and reads until the
// server's SETTINGS arrive, which it acknowledges.
func h2Handshake(c net.Conn, fr *http2.Framer) (h2Peer, error) {
	peer := h2Peer{maxStreams: 100, streamWindow: 65535, connWindow: 65535, maxFrame: 16384}
	if _, err := c.Write([]byte(http2.ClientPreface)); err != nil {
		return peer, err
	}
	if err := fr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: ourWindow},
	); err != nil {
		return peer, err
	}
	if err := fr.WriteWindowUpdate(0, ourWindow); err != nil {
		return peer, err
	}
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return peer, err
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				continue
			}
			peer.apply(f)
			return peer, fr.WriteSettingsAck()
		case *http2.WindowUpdateFrame:
			if f.StreamID == 0 {
				peer.connWindow += int64(f.Increment)
			}
		case *http2.GoAwayFrame:
			return peer, fmt.Errorf("server sent GOAWAY (%v)", f.ErrCode)
		}
	}
}

func (p *h2Peer) apply(f *http2.SettingsFrame) {
	_ = f.ForeachSetting(func(s http2.Setting) error {
		switch s.ID {
		case http2.SettingMaxConcurrentStreams:
			p.maxStreams = s.Val
		case http2.SettingInitialWindowSize:
			p.streamWindow = s.Val
		case http2.SettingMaxFrameSize:
			p.maxFrame = s.Val
		}
		return nil
	})
}

// admits checks N and the body against the server's limits: more streams
// than it allows would be refused, and a body beyond the flow-control
// window would stall until the server reads, which breaks the release.
func (p h2Peer) admits(n, bodyLen int) error {
	if uint32(n) > p.maxStreams {
		return fmt.Errorf("-n %d is more than the server's SETTINGS_MAX_CONCURRENT_STREAMS (%d); use -n %d or --sync h1", n, p.maxStreams, p.maxStreams)
	}
	if uint32(bodyLen) > p.streamWindow {
		return fmt.Errorf("the body (%d bytes) exceeds the server's stream flow-control window (%d bytes); use --sync h1", bodyLen, p.streamWindow)
	}
	if int64(n)*int64(bodyLen) > p.connWindow {
		return fmt.Errorf("%d bodies of %d bytes exceed the server's connection flow-control window (%d bytes); use a smaller -n or --sync h1", n, bodyLen, p.connWindow)
	}
	return nil
}

// H2Layout varies how the HTTP/2 burst lays out its frames. It is a
// benchmark knob (bench/race's h2-* methods, docs/race-sync.md); the CLI
// leaves it zero. The zero layout, with --split headers: every stream's
// HEADERS frame (without END_STREAM) leaves in one write before the
// settle, and every DATA frame is withheld to the release, in stream
// order; a request without a body has only its HEADERS (with END_STREAM),
// all withheld. With --split last-byte: HEADERS and all DATA but each
// body's last byte first, the final one-byte DATA frames withheld.
type H2Layout struct {
	// Withheld keeps every frame, HEADERS too, for the release: each
	// stream's HEADERS then its DATA (the probe's layout until the
	// measurements in docs/race-sync.md).
	Withheld bool
	// HeadersFirst, with Withheld, puts every HEADERS frame before any
	// DATA frame in the release block (H1 H3 D1 D3 rather than
	// H1 D1 H3 D3).
	HeadersFirst bool
	// NoBody sends the requests without a body: END_STREAM on HEADERS,
	// one frame per stream.
	NoBody bool
	// Reverse puts the withheld DATA frames in descending stream order
	// after every HEADERS frame (H1 H3 D3 D1). HEADERS stay in ascending
	// order: opening a stream closes every idle stream with a lower ID.
	Reverse bool
}

// h2Blocks encodes the N streams into what is written before the settle
// and what is withheld to the release, as H2Layout describes.
func h2Blocks(r request, n int, split string, layout H2Layout, maxFrame uint32) (pre, release []byte, err error) {
	var preBuf, relBuf bytes.Buffer
	preFr := http2.NewFramer(&preBuf, nil)
	relFr := http2.NewFramer(&relBuf, nil)
	relData := make([]bytes.Buffer, n) // each stream's withheld DATA when grouped after the HEADERS
	grouped := layout.HeadersFirst || layout.Reverse
	if layout.NoBody {
		r.body = nil
	}
	if split == SplitNone {
		// Nothing early: every frame of every stream is the release.
		split, layout.Withheld = SplitHeaders, true
	}
	var hbuf bytes.Buffer
	enc := hpack.NewEncoder(&hbuf)
	for i := range n {
		id := uint32(2*i + 1)
		hbuf.Reset()
		encodeH2Headers(enc, r)
		block := append([]byte(nil), hbuf.Bytes()...)
		if uint32(len(block)) > maxFrame {
			return nil, nil, fmt.Errorf("the request headers (%d bytes) do not fit one HTTP/2 frame (%d bytes)", len(block), maxFrame)
		}
		headersFr, bodyHead, bodyTail := relFr, []byte(nil), r.body
		if split == SplitLastByte {
			headersFr = preFr
			if len(r.body) > 0 {
				bodyHead, bodyTail = r.body[:len(r.body)-1], r.body[len(r.body)-1:]
			}
		}
		endStream := len(r.body) == 0 && (split == SplitHeaders || layout.NoBody)
		switch {
		case endStream:
			// A stream of one frame: it is the release.
			headersFr = relFr
		case !layout.Withheld:
			// The server starts each handler during the settle; the
			// release is the DATA alone (docs/race-sync.md).
			headersFr = preFr
		}
		if err := headersFr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndHeaders: true, EndStream: endStream}); err != nil {
			return nil, nil, err
		}
		if err := writeData(preFr, id, bodyHead, false, maxFrame); err != nil {
			return nil, nil, err
		}
		if !endStream {
			dataFr := relFr
			if grouped {
				dataFr = http2.NewFramer(&relData[i], nil)
			}
			if err := writeData(dataFr, id, bodyTail, true, maxFrame); err != nil {
				return nil, nil, err
			}
		}
	}
	for k := range relData {
		if layout.Reverse {
			k = n - 1 - k
		}
		relBuf.Write(relData[k].Bytes())
	}
	return preBuf.Bytes(), relBuf.Bytes(), nil
}

func encodeH2Headers(enc *hpack.Encoder, r request) {
	scheme := "http"
	if r.target.tls {
		scheme = "https"
	}
	field := func(k, v string) { _ = enc.WriteField(hpack.HeaderField{Name: k, Value: v}) }
	field(":method", r.method)
	field(":scheme", scheme)
	field(":authority", r.target.host)
	field(":path", r.target.requestPath)
	hasUA := false
	for _, h := range r.header {
		name := strings.ToLower(h.Name)
		if name == "host" || name == "connection" || name == "content-length" {
			continue
		}
		hasUA = hasUA || name == "user-agent"
		field(name, string(h.Value))
	}
	if !hasUA {
		field("user-agent", "idemcheck-race")
	}
	if len(r.body) > 0 {
		field("content-length", strconv.Itoa(len(r.body)))
	}
}

// writeData writes data in frames no larger than maxFrame; with end set,
// the last frame (possibly empty) ends the stream.
func writeData(fr *http2.Framer, id uint32, data []byte, end bool, maxFrame uint32) error {
	for len(data) > int(maxFrame) {
		if err := fr.WriteData(id, false, data[:maxFrame]); err != nil {
			return err
		}
		data = data[maxFrame:]
	}
	if len(data) == 0 && !end {
		return nil
	}
	return fr.WriteData(id, end, data)
}

// readH2Responses reads frames until every stream ended, failed or the
// connection's deadline passed. released is when the release write began.
func readH2Responses(c net.Conn, fr *http2.Framer, b *burst, released time.Time) {
	done := make([]bool, len(b.responses))
	left := len(done)
	finish := func(i int, err error) {
		if done[i] {
			return
		}
		done[i] = true
		left--
		b.elapsed[i] = time.Since(released)
		if err != nil {
			b.responses[i].Err = err
		}
	}
	index := func(id uint32) (int, bool) {
		i := int(id-1) / 2
		return i, id%2 == 1 && i < len(done) && !done[i]
	}
	for left > 0 {
		f, err := fr.ReadFrame()
		if err != nil {
			for i := range done {
				finish(i, err)
			}
			return
		}
		switch f := f.(type) {
		case *http2.MetaHeadersFrame:
			if i, ok := index(f.StreamID); ok {
				readH2Headers(&b.responses[i], f)
				if f.StreamEnded() {
					finish(i, nil)
				}
			}
		case *http2.DataFrame:
			if n := len(f.Data()); n > 0 {
				_ = fr.WriteWindowUpdate(0, uint32(n))
				_ = fr.WriteWindowUpdate(f.StreamID, uint32(n))
			}
			if i, ok := index(f.StreamID); ok {
				if len(b.responses[i].Body)+len(f.Data()) > maxBody {
					b.responses[i].Body = nil
					finish(i, errBodyTooLong)
					continue
				}
				b.responses[i].Body = append(b.responses[i].Body, f.Data()...)
				if f.StreamEnded() {
					finish(i, nil)
				}
			}
		case *http2.RSTStreamFrame:
			if i, ok := index(f.StreamID); ok {
				finish(i, fmt.Errorf("stream reset by the server (%v)", f.ErrCode))
			}
		case *http2.GoAwayFrame:
			for i := range done {
				if uint32(2*i+1) > f.LastStreamID {
					finish(i, fmt.Errorf("server sent GOAWAY (%v) before answering", f.ErrCode))
				}
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				_ = fr.WritePing(true, f.Data)
			}
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		}
	}
}

func readH2Headers(r *racetest.Response, f *http2.MetaHeadersFrame) {
	if st := f.PseudoValue("status"); st != "" {
		code, err := strconv.Atoi(st)
		if err != nil {
			r.Err = errors.New("bad :status " + st)
			return
		}
		if code >= 100 && code < 200 {
			return // an interim response; the final one follows
		}
		r.Status = code
	}
	if r.Header == nil {
		r.Header = map[string][]string{}
	}
	for _, hf := range f.RegularFields() {
		r.Header.Add(hf.Name, hf.Value)
	}
}
