package newfindings

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

func finding(rule, object, file string, related ...string) audit.Finding {
	f := audit.Finding{Rule: rule, Object: object, Columns: []string{"c"}, Pos: catalog.Pos{File: file, Line: 1, Col: 1}}
	for _, r := range related {
		f.Related = append(f.Related, audit.Related{Pos: catalog.Pos{File: r, Line: 1, Col: 1}})
	}
	return f
}

func TestApplyKeepsFindingsWithAnyLocationInAChangedFile(t *testing.T) {
	dir := t.TempDir()
	changed, old := filepath.Join(dir, "new.sql"), filepath.Join(dir, "old.sql")
	c := &Changes{files: map[string]bool{resolve(changed): true}}
	res := Apply([]audit.Finding{
		finding("nullable-key", "public.a.k", old),
		finding("nullable-key", "public.b.k", changed),
		finding("on-conflict-hole", "public.c.k", old, old, changed),
		{Rule: "invalid-unique-index", Object: "public.d.k"}, // live: no file
	}, Options{Changes: c})
	var kept []string
	for _, f := range res.Findings {
		kept = append(kept, f.Object)
	}
	if strings.Join(kept, " ") != "public.b.k public.c.k" || res.NotNew != 2 {
		t.Errorf("kept %q and %d not new, want public.b.k public.c.k and 2", kept, res.NotNew)
	}
}

func TestApplyBaselineHidesOneFindingPerEntry(t *testing.T) {
	a := finding("unused-ignore", "idemcheck:ignore nullable-key", "x.sql")
	b := finding("nullable-key", "public.b.k", "y.sql")
	ignored := finding("nullable-key", "public.z.k", "y.sql")
	ignored.Suppressed = &audit.Suppression{Kind: "inline", Reason: "r"}
	base := &Baseline{Path: "b.json", File: baselineFile{Command: "lint", Findings: []baselineEntry{
		{Fingerprint: a.Fingerprint(), Rule: a.Rule},
		{Fingerprint: b.Fingerprint(), Rule: b.Rule, Object: b.Object, Columns: b.Columns},
		{Fingerprint: b.Fingerprint(), Rule: b.Rule, Object: b.Object, Columns: b.Columns},
		{Fingerprint: "0123", Rule: "deferrable-unique", Object: "public.gone.k"},
	}}}
	res := Apply([]audit.Finding{a, a, b, ignored}, Options{Baseline: base, Ran: []string{"nullable-key", "unused-ignore"}})
	var shown []string
	for _, f := range res.Findings {
		if f.Suppressed == nil {
			shown = append(shown, f.Rule)
		}
	}
	// The baseline lists a once: the second one is new.
	if strings.Join(shown, " ") != "unused-ignore" {
		t.Errorf("shown %q, want the second unused-ignore only", shown)
	}
	if res.Findings[3].Suppressed.Kind != "inline" {
		t.Error("a finding an ignore directive suppressed was re-marked")
	}
	// One entry for b is left over; deferrable-unique did not run.
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "nullable-key public.b.k (c) matches no finding any more") {
		t.Errorf("notes %q", res.Notes)
	}
}

// A baseline inspect wrote cannot list the rules that read migration
// history; a lint baseline that left a rule out by choice lists none of its
// findings, and those are new.
func TestApplyBaselineFromInspect(t *testing.T) {
	history := finding("unique-dropped", "public.a.k", "m.sql")
	other := finding("deferrable-unique", "public.b.k", "m.sql")
	for _, tc := range []struct {
		command string
		shown   int
	}{{"inspect", 1}, {"lint", 2}} {
		base := &Baseline{Path: "b.json", File: baselineFile{Command: tc.command, Rules: []string{"nullable-key"}}}
		res := Apply([]audit.Finding{history, other}, Options{Baseline: base})
		n := 0
		for _, f := range res.Findings {
			if f.Suppressed == nil {
				n++
			}
		}
		if n != tc.shown {
			t.Errorf("baseline written by %s: %d shown, want %d (notes %q)", tc.command, n, tc.shown, res.Notes)
		}
	}
}

func TestBaselineFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.json")
	fs := []audit.Finding{finding("nullable-key", "public.b.k", "y.sql"), finding("nullable-key", "public.a.k", "x.sql")}
	if n, err := WriteBaseline(path, "lint", []string{"nullable-key"}, fs); err != nil || n != 2 {
		t.Fatalf("wrote %d, %v", n, err)
	}
	b, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.File.Findings) != 2 || b.File.Findings[0].Object != "public.a.k" || b.File.Command != "lint" {
		t.Errorf("read back %+v", b.File)
	}
}
