package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/catalog"
)

func TestGitHubGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := GitHub(&buf, sampleDocument(), Options{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "github.golden", buf.Bytes())
	if strings.Contains(buf.String(), "tags_owner_name") {
		t.Error("a suppressed finding was annotated")
	}
}

// A live database has tables and round trips, not files: the summary says
// what inspect read.
func TestGitHubLiveSummary(t *testing.T) {
	doc := &Document{Summary: Summary{Live: true, Tables: 14, RoundTrips: 2}}
	var buf bytes.Buffer
	if err := GitHub(&buf, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "idemcheck: 0 errors, 0 warnings, 0 info, 0 suppressed, 0 input errors in 14 tables (2 round trips)\n"
	if buf.String() != want {
		t.Errorf("got  %q\nwant %q", buf.String(), want)
	}
}

func TestGitHubEscapes(t *testing.T) {
	got := annotation("error", catalog.Pos{File: "db/a,b:c%.sql", Line: 3, Col: 7}, "t: x, y", "50% off\r\nnext")
	want := "::error file=db/a%2Cb%3Ac%25.sql,line=3,col=7,title=t%3A x%2C y::50%25 off%0D%0Anext"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
