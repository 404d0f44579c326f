package httprace

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// h2cServer serves h over HTTP/1.1 and over cleartext HTTP/2 with prior
// knowledge, with net/http's own HTTP/2 configured by cfg (nil: defaults).
func h2cServer(h http.Handler, cfg *http.HTTP2Config) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Config.HTTP2 = cfg
	srv.Start()
	return srv
}

// h2TLSServer serves h over TLS, offering h2 by ALPN.
func h2TLSServer(h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	return srv
}

// protoRecorder notes the protocol each request came in on.
type protoRecorder struct {
	Gate
	protos chan string
}

func (p *protoRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case p.protos <- r.Proto:
	default:
	}
	p.Gate.ServeHTTP(w, r)
}

func TestH2cSinglePacket(t *testing.T) {
	cases := []struct {
		window time.Duration
		split  string
		want   racetest.Status
	}{
		{200 * time.Microsecond, SplitHeaders, racetest.Broken},
		{200 * time.Microsecond, SplitLastByte, racetest.Broken},
		{0, SplitHeaders, racetest.Holds},
		{0, SplitLastByte, racetest.Holds},
	}
	for _, c := range cases {
		t.Run(string(c.want)+"/"+c.split, func(t *testing.T) {
			rec := &protoRecorder{Gate: Gate{Window: c.window}, protos: make(chan string, 1)}
			srv := h2cServer(rec, nil)
			defer srv.Close()
			p := quick(srv.URL + "/claims")
			p.Sync, p.Split, p.N = SyncH2, c.split, 4
			p.Effect = rec.Counter()
			res := run(t, p)
			if res.Verdict.Status != c.want {
				t.Fatalf("verdict %s (%s), want %s", res.Verdict.Status, res.Verdict.Sentence, c.want)
			}
			if proto := <-rec.protos; proto != "HTTP/2.0" {
				t.Errorf("the server saw %s, want HTTP/2.0", proto)
			}
		})
	}
}

// TestH2OverTLSWithALPN: --sync h2 over TLS speaks HTTP/2 agreed by ALPN.
// (--sync auto picks h1 for Go's server: TestSyncAutoTable.)
func TestH2OverTLSWithALPN(t *testing.T) {
	for _, c := range []struct {
		window time.Duration
		want   racetest.Status
	}{{200 * time.Microsecond, racetest.Broken}, {0, racetest.Holds}} {
		t.Run(string(c.want), func(t *testing.T) {
			rec := &protoRecorder{Gate: Gate{Window: c.window}, protos: make(chan string, 1)}
			srv := h2TLSServer(rec)
			defer srv.Close()
			p := quick(srv.URL + "/claims")
			p.Insecure = true // httptest's self-signed certificate
			p.Sync = SyncH2
			p.Effect = rec.Counter()
			res := run(t, p)
			if res.Verdict.Status != c.want {
				t.Fatalf("verdict %s (%s), want %s", res.Verdict.Status, res.Verdict.Sentence, c.want)
			}
			if proto := <-rec.protos; proto != "HTTP/2.0" {
				t.Errorf("the server saw %s, want HTTP/2.0", proto)
			}
		})
	}
}

func TestH2SelfSignedNeedsInsecure(t *testing.T) {
	srv := h2TLSServer(&Gate{})
	defer srv.Close()
	_, err := Run(context.Background(), quick(srv.URL))
	if err == nil || !strings.Contains(err.Error(), "--insecure") {
		t.Fatalf("err %v, want a hint to --insecure", err)
	}
}

func TestH2RespectsMaxConcurrentStreams(t *testing.T) {
	srv := h2cServer(&Gate{}, &http.HTTP2Config{MaxConcurrentStreams: 4})
	defer srv.Close()
	p := quick(srv.URL)
	p.Sync, p.N = SyncH2, 8
	_, err := Run(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "SETTINGS_MAX_CONCURRENT_STREAMS (4)") {
		t.Fatalf("err %v, want the server's stream limit named", err)
	}
}

func TestH2LargeReleaseBlockWarns(t *testing.T) {
	g := &Gate{}
	srv := h2cServer(g, nil)
	defer srv.Close()
	p := quick(srv.URL)
	p.Sync, p.N, p.Rounds = SyncH2, 4, 2
	p.Effect = g.Counter()
	p.Body = racetest.Template(strings.Repeat("x", 600))
	res := run(t, p)
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "more than one packet") {
		t.Fatalf("warnings %q, want one about the release block size", res.Warnings)
	}
	if res.Verdict.Status != racetest.Holds {
		t.Errorf("verdict %s (%s), want holds", res.Verdict.Status, res.Verdict.Sentence)
	}
}

func TestH2ServerErrorsAreInconclusive(t *testing.T) {
	srv := h2cServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}), nil)
	defer srv.Close()
	p := quick(srv.URL)
	p.Sync, p.Rounds = SyncH2, 2
	res := run(t, p)
	if res.Verdict.Status != racetest.Inconclusive {
		t.Fatalf("verdict %s (%s), want inconclusive", res.Verdict.Status, res.Verdict.Sentence)
	}
}
