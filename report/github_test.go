package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/testkit/golden"
)

func TestGitHubGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := GitHub(&buf, sampleDocument(), Options{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/github.golden", buf.Bytes())
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
	want := "idemcheck: 0 errors, 0 warnings, 0 info in 14 tables (2 round trips) — 0.00 s\n"
	if buf.String() != want {
		t.Errorf("got  %q\nwant %q", buf.String(), want)
	}
}

// The annotations end with the text report's summary: what --min-severity
// left out and what the baseline holds are counted there too, and the count
// of notes does not point at -v, which shows no note in this format.
func TestGitHubSummaryIsTheTextSummary(t *testing.T) {
	doc := manyInfos()
	doc.MinSeverity = audit.Warning
	doc.Diagnostics = []Diagnostic{{Level: LevelNote, Message: "skipped"}}
	doc.Findings[0].Suppressed = &audit.Suppression{Kind: SuppressBaseline, Reason: "accepted"}
	var gh, text bytes.Buffer
	if err := GitHub(&gh, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Text(&text, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	ghLines := strings.Split(strings.TrimSpace(gh.String()), "\n")
	textLines := strings.Split(strings.TrimSpace(text.String()), "\n")
	got, want := ghLines[len(ghLines)-1], "idemcheck: "+strings.Replace(textLines[len(textLines)-1], " (-v to show)", "", 1)
	if got != want {
		t.Errorf("github summary\n %q\nwant\n %q", got, want)
	}
	for _, part := range []string{"below --min-severity warning not shown", "1 in the baseline", "1 note,"} {
		if !strings.Contains(got, part) {
			t.Errorf("github summary %q lacks %q", got, part)
		}
	}
}

func TestGitHubEscapes(t *testing.T) {
	got := annotation("error", catalog.Pos{File: "db/a,b:c%.sql", Line: 3, Col: 7}, "t: x, y", "50% off\r\nnext")
	want := "::error file=db/a%2Cb%3Ac%25.sql,line=3,col=7,title=t%3A x%2C y::50%25 off%0D%0Anext"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
