package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/internal/testkit/golden"
	"github.com/idemcheck/idemcheck/report"
)

const (
	rulesPage   = "../docs/rules.md"
	rulesStart  = "<!-- rules:start -->"
	rulesEnd    = "<!-- rules:end -->"
	regenerator = "scripts/regen.sh"
)

// TestRulesPageTable fails when the rule table of docs/rules.md is not
// what the rule docs generate, so the table can never drift from the rules.
func TestRulesPageTable(t *testing.T) {
	data, err := os.ReadFile(rulesPage)
	if err != nil {
		t.Fatalf("%v: docs/rules.md must hold the rule table between %s and %s", err, rulesStart, rulesEnd)
	}
	text := string(data)
	start, end := strings.Index(text, rulesStart), strings.Index(text, rulesEnd)
	if start < 0 || end < start {
		t.Fatalf("docs/rules.md has no %s ... %s block: add the two markers on lines of their own where the rule table goes, then run %s", rulesStart, rulesEnd, regenerator)
	}
	want := "\n" + report.RulesTable(audit.Rules)
	got := text[start+len(rulesStart) : end]
	if got == want {
		return
	}
	if golden.Update() {
		if err := os.WriteFile(rulesPage, []byte(text[:start+len(rulesStart)]+want+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the rule table in docs/rules.md is stale; run %s\n%s", regenerator, golden.Diff(got, want))
}

func TestDocsRulesTable(t *testing.T) {
	r := run(t, "docs", "rules-table")
	assertCode(t, r, ExitOK)
	for _, rule := range audit.Rules {
		assertContains(t, "stdout", r.stdout, `<a id="rule-`+rule.ID+`"></a>`+"`"+rule.ID+"` | "+rule.Severity.String()+" |")
	}
}

func TestDocsMan(t *testing.T) {
	dir := t.TempDir()
	r := invocation{env: map[string]string{"SOURCE_DATE_EPOCH": "1767225600"}}.run(t, "docs", "man", dir)
	assertCode(t, r, ExitOK)
	for _, page := range []string{"idemcheck.1", "idemcheck-lint.1", "idemcheck-rules.1"} {
		data, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatal(err)
		}
		if page == "idemcheck-lint.1" {
			assertContains(t, page, string(data), "Jan 2026", `\fB--fix-sql\fP`, `\fB--format\fP`)
		}
	}
}
