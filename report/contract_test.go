package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

// TestHelpURIIsTheRuleDocsSection: every rule's helpUri is its section of
// docs/rules-reference.md, in the docs of the version that wrote the log.
func TestHelpURIIsTheRuleDocsSection(t *testing.T) {
	page, err := os.ReadFile("../docs/rules-reference.md")
	if err != nil {
		t.Fatal(err)
	}
	for version, ref := range map[string]string{
		"v1.2.0": "v1.2.0", "v0.1.0-rc.1": "v0.1.0-rc.1", "devel": "main", "": "main",
		"v0.0.0-20260101000000-0123456789ab": "main", "v1.2.1-0.20260101000000-0123456789ab+dirty": "main",
		"v1.2.1-0.20260101000000-0123456789ab": "main",
	} {
		var buf bytes.Buffer
		if err := SARIF(&buf, &Document{Tool: ToolName, Version: version}, Options{}); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Runs []struct {
				Tool struct {
					Driver struct {
						Rules []struct {
							ID      string `json:"id"`
							HelpURI string `json:"helpUri"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		rules := log.Runs[0].Tool.Driver.Rules
		if len(rules) != len(audit.Rules) {
			t.Fatalf("%d rules in the log, %d registered", len(rules), len(audit.Rules))
		}
		for _, r := range rules {
			want := "https://github.com/idemcheck/idemcheck/blob/" + ref + "/docs/rules-reference.md#" + r.ID
			if r.HelpURI != want {
				t.Errorf("version %q: %s helpUri %s, want %s", version, r.ID, r.HelpURI, want)
			}
			if !strings.Contains(string(page), "\n## "+r.ID+"\n") {
				t.Errorf("docs/rules-reference.md has no section %q for %s's helpUri", "## "+r.ID, r.ID)
			}
		}
	}
}

// TestJSONCarriesFormatVersionAndFingerprints: the document says its own
// format version beside the tool's, and every finding its fingerprint, the
// one the baseline and GitLab use.
func TestJSONCarriesFormatVersionAndFingerprints(t *testing.T) {
	doc := sampleDocument()
	var buf bytes.Buffer
	if err := JSON(&buf, doc, Options{}); err != nil {
		t.Fatal(err)
	}
	var out struct {
		FormatVersion *int   `json:"format_version"`
		Version       string `json:"version"`
		Findings      []struct {
			Fingerprint string `json:"fingerprint"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.FormatVersion == nil || *out.FormatVersion != FormatVersion || out.Version != doc.Version {
		t.Errorf("format_version %v, version %q; want %d and %q", out.FormatVersion, out.Version, FormatVersion, doc.Version)
	}
	var shown []audit.Finding
	for _, f := range doc.Findings {
		if doc.Shown(f) {
			shown = append(shown, f)
		}
	}
	if len(out.Findings) != len(shown) || len(shown) == 0 {
		t.Fatalf("%d findings in JSON, %d shown", len(out.Findings), len(shown))
	}
	for i, f := range shown {
		if out.Findings[i].Fingerprint != f.Fingerprint() {
			t.Errorf("finding %d: fingerprint %q, want %q", i, out.Findings[i].Fingerprint, f.Fingerprint())
		}
	}
}

// TestTextWrapsAtWidth: the prose of a finding wraps at Options.Width, its
// first line never does, and no width means DefaultWidth.
func TestTextWrapsAtWidth(t *testing.T) {
	long := strings.Repeat("every row with a NULL in the key gets through the index ", 6)
	doc := &Document{Tool: ToolName, Version: "devel", Findings: []audit.Finding{{
		Rule: "nullable-key", Severity: audit.Error, Object: "public.a_rather_long_table_name.a_rather_long_index_name_key",
		Message: long, Pos: catalog.Pos{File: strings.Repeat("deep/", 12) + "000001_create.up.sql", Line: 3, Col: 1},
	}}}
	for _, c := range []struct{ width, want int }{{60, 60}, {0, DefaultWidth}, {10, minWidth}} {
		var buf bytes.Buffer
		if err := Text(&buf, doc, Options{Width: c.width}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(buf.String(), "\n")
		if !strings.HasPrefix(lines[0], doc.Findings[0].Pos.String()+": error nullable-key") {
			t.Errorf("width %d: first line %q", c.width, lines[0])
		}
		longest := 0
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "  ") {
				longest = max(longest, len(l))
			}
		}
		if longest > c.want || longest < c.want-15 {
			t.Errorf("width %d: longest message line %d, want at most %d and close to it", c.width, longest, c.want)
		}
	}
}
