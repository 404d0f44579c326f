package httprace

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/racetest"
)

// FuzzReadH1 feeds arbitrary bytes to the HTTP/1.1 response reader, both
// as they are and followed by an endless stream. Nothing may panic, the
// body kept never exceeds maxBody, the reader never reads more than its
// bound from the connection, and classification accepts whatever came
// back.
func FuzzReadH1(f *testing.F) {
	for _, seed := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n",
		"HTTP/1.1 409 Conflict\r\nIdempotent-Replayed: true\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nbody until close",
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n",
		"HTTP/1.1 999 \r\nX: \x00\r\n\r\n", "HTTP/1.1", "\r\n\r\n", "",
	} {
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, endless bool) {
		src := io.Reader(bytes.NewReader(data))
		if endless {
			src = io.MultiReader(src, endlessReader{})
		}
		counted := &countingReader{r: src}
		r := readH1From(counted)
		if len(r.Body) > maxBody {
			t.Fatalf("kept %d bytes of body, bound %d", len(r.Body), maxBody)
		}
		if counted.n > maxHead+maxBody {
			t.Fatalf("read %d bytes from the connection, bound %d", counted.n, maxHead+maxBody)
		}
		kind, detail := racetest.Classifier{}.Classify(r, false)
		if kind == "" && detail == "" && r.Err == nil && r.Status == 0 {
			t.Fatalf("a response with no status and no error: %+v", r)
		}
	})
}

// endlessReader is a server that never stops sending header-ish bytes.
type endlessReader struct{}

func (endlessReader) Read(p []byte) (int, error) {
	return copy(p, strings.Repeat("x", len(p))), nil
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
