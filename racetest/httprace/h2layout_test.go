package httprace

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/http2"
)

// frameOrder lists the frames in b as "H1" (HEADERS of stream 1), "D3"
// (DATA of stream 3), "+" marking END_STREAM.
func frameOrder(t *testing.T, b []byte) string {
	t.Helper()
	fr := http2.NewFramer(nil, bytes.NewReader(b))
	var out []string
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			break
		}
		kind := map[http2.FrameType]string{http2.FrameHeaders: "H", http2.FrameData: "D"}[f.Header().Type]
		end := ""
		if f.Header().Flags.Has(http2.FlagHeadersEndStream) {
			end = "+"
		}
		out = append(out, fmt.Sprintf("%s%d%s", kind, f.Header().StreamID, end))
	}
	return strings.Join(out, " ")
}

// The probe's HTTP/2 layout and the benchmark's variants put the frames
// where docs/race-sync.md says, and a Go server answers every stream of
// each.
func TestH2Layouts(t *testing.T) {
	r := request{method: http.MethodPost, target: target{host: "x", requestPath: "/"}, body: []byte("abc")}
	for _, c := range []struct {
		name         string
		split        string
		layout       H2Layout
		pre, release string
	}{
		{"default", SplitHeaders, H2Layout{}, "H1 H3", "D1+ D3+"},
		{"last byte", SplitLastByte, H2Layout{}, "H1 D1 H3 D3", "D1+ D3+"},
		{"withheld", SplitHeaders, H2Layout{Withheld: true}, "", "H1 D1+ H3 D3+"},
		{"withheld, grouped", SplitHeaders, H2Layout{Withheld: true, HeadersFirst: true}, "", "H1 H3 D1+ D3+"},
		{"withheld, reverse", SplitHeaders, H2Layout{Withheld: true, Reverse: true}, "", "H1 H3 D3+ D1+"},
		{"reverse", SplitHeaders, H2Layout{Reverse: true}, "H1 H3", "D3+ D1+"},
		{"no body", SplitHeaders, H2Layout{NoBody: true}, "", "H1+ H3+"},
		{"no body, last byte", SplitLastByte, H2Layout{NoBody: true}, "", "H1+ H3+"},
		{"none", SplitNone, H2Layout{}, "", "H1 D1+ H3 D3+"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pre, release, err := h2Blocks(r, 2, c.split, c.layout, 16384)
			if err != nil {
				t.Fatal(err)
			}
			if got := frameOrder(t, pre); got != c.pre {
				t.Errorf("before the settle: %q, want %q", got, c.pre)
			}
			if got := frameOrder(t, release); got != c.release {
				t.Errorf("release block: %q, want %q", got, c.release)
			}
			g := &Gate{}
			srv := h2cServer(g, nil)
			defer srv.Close()
			p := quick(srv.URL + "/claims")
			p.Sync, p.Split, p.H2, p.Rounds = SyncH2, c.split, c.layout, 2
			p.Defaults()
			res, err := Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			for _, rd := range res.Rounds {
				if len(rd.Outcomes) != 2 {
					t.Errorf("round %d: %d outcomes, want 2", rd.Index, len(rd.Outcomes))
				}
				for _, o := range rd.Outcomes {
					if o.Err != "" || (o.Status != http.StatusCreated && o.Status != http.StatusConflict) {
						t.Errorf("round %d request %d: status %d, error %q", rd.Index, o.Request, o.Status, o.Err)
					}
				}
			}
		})
	}
}
