package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/idemcheck/idemcheck/racetest"
	"go.uber.org/goleak"
)

// hostileServer accepts connections on 127.0.0.1 and hands each to serve
// in its own goroutine. Close stops accepting, closes every connection and
// waits for every goroutine, so that goleak sees only what the probe left.
type hostileServer struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
	done  chan struct{}
}

func startHostile(t *testing.T, serve func(c net.Conn, done <-chan struct{})) *hostileServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &hostileServer{ln: ln, done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				serve(c, s.done)
			}()
		}
	}()
	return s
}

func (s *hostileServer) URL() string { return "http://" + s.ln.Addr().String() + "/charges" }

func (s *hostileServer) Close() {
	close(s.done)
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// readRequestHead reads until the end of the request's headers, so that a
// server answers only once the probe released its request.
func readRequestHead(c net.Conn) bool {
	_, err := http.ReadRequest(bufio.NewReader(c))
	return err == nil
}

// Servers that misbehave in the ways a probe must survive.
var (
	neverAnswers = func(c net.Conn, done <-chan struct{}) {
		io.Copy(io.Discard, c) // read everything, answer nothing, until closed
	}
	slowBytes = func(c net.Conn, done <-chan struct{}) {
		if !readRequestHead(c) {
			return
		}
		resp := "HTTP/1.1 201 Created\r\nContent-Length: 64\r\n\r\n" + strings.Repeat("x", 64)
		for i := range len(resp) {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond): // one byte every 50 ms, never finishing in time
			}
			if _, err := c.Write([]byte{resp[i]}); err != nil {
				return
			}
		}
	}
	endlessBody = func(c net.Conn, done <-chan struct{}) {
		if !readRequestHead(c) {
			return
		}
		if _, err := io.WriteString(c, "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n"); err != nil {
			return
		}
		chunk := []byte("4000\r\n" + strings.Repeat("y", 0x4000) + "\r\n")
		for {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	}
	closesAfterHeaders = func(c net.Conn, done <-chan struct{}) {
		if !readRequestHead(c) {
			return
		}
		io.WriteString(c, "HTTP/1.1 201 Created\r\nContent-Length: 100\r\n\r\n")
		c.Close()
	}
)

// goawayH2 is an HTTP/2 server (prior knowledge, cleartext) that answers
// the first stream of a round and then sends GOAWAY naming it as the last,
// so the round's other streams are refused mid-round.
func goawayH2(c net.Conn, done <-chan struct{}) {
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil {
		return
	}
	fr := http2.NewFramer(c, c)
	if fr.WriteSettings() != nil {
		return
	}
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() && fr.WriteSettingsAck() != nil {
				return
			}
		case *http2.HeadersFrame:
			if !f.StreamEnded() {
				continue // the body follows; answer when the stream ends
			}
			if answerThenGoAway(fr, enc, &buf, f.StreamID) != nil {
				return
			}
		case *http2.DataFrame:
			if f.StreamEnded() && answerThenGoAway(fr, enc, &buf, f.StreamID) != nil {
				return
			}
		}
	}
}

func answerThenGoAway(fr *http2.Framer, enc *hpack.Encoder, buf *bytes.Buffer, id uint32) error {
	buf.Reset()
	enc.WriteField(hpack.HeaderField{Name: ":status", Value: "201"})
	if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: buf.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
		return err
	}
	return fr.WriteGoAway(id, http2.ErrCodeNo, []byte("going away mid-round"))
}

// TestRaceHTTPHostileServers: each run ends by its deadline with an
// inconclusive or error verdict, and leaves no goroutine behind.
func TestRaceHTTPHostileServers(t *testing.T) {
	cases := []struct {
		name  string
		serve func(net.Conn, <-chan struct{})
		args  []string
		// answersOne: the server finishes one response per round.
		answersOne bool
	}{
		{"never answers", neverAnswers, nil, false},
		{"answers byte by byte", slowBytes, nil, false},
		{"endless body", endlessBody, nil, false},
		{"closes after the headers", closesAfterHeaders, nil, false},
		{"HTTP/2 GOAWAY mid-round", goawayH2, []string{"--sync", "h2", "-n", "4"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			srv := startHostile(t, tc.serve)
			defer srv.Close()
			args := append([]string{"race", "http", "-H", "Idempotency-Key: {{key}}", "--rounds", "3",
				"--timeout", "300ms", "--deadline", "2s", "--format", "json"}, tc.args...)
			code, out, errs := runCmd(t, append(args, srv.URL())...)
			if code != ExitInconclusive && code != ExitUsage {
				t.Fatalf("exit %d, want 3 (inconclusive) or 2 (error)\nstdout:\n%s\nstderr:\n%s", code, out, errs)
			}
			if code == ExitUsage {
				if !strings.Contains(errs, "idemcheck: ") {
					t.Errorf("exit 2 without an error message: %q", errs)
				}
				return
			}
			var res racetest.Result
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("JSON: %v\n%s", err, out)
			}
			t.Logf("exit %d: %s", code, res.Verdict.Sentence)
			if res.Verdict.Status != racetest.Inconclusive {
				t.Errorf("verdict %q, want inconclusive", res.Verdict.Status)
			}
			for _, r := range res.Rounds {
				if tc.answersOne {
					if r.Wins() > 1 || r.Count(racetest.Error) == 0 {
						t.Errorf("round %d: %d wins, %d errors; want at most one win and the refused streams as errors", r.Index, r.Wins(), r.Count(racetest.Error))
					}
					continue
				}
				for _, o := range r.Outcomes {
					if o.Kind == racetest.Win {
						t.Errorf("round %d request %d counted as a win against a server that never finished answering", r.Index, o.Request)
					}
				}
			}
		})
	}
}
