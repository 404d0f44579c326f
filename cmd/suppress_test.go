package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"
)

const suppressFixture = "../testdata/suppress/"

// TestSuppressionFixture runs lint over a tree with every suppression form
// (next statement, whole file, configuration object), a stale directive, a
// stale configuration entry and an excluded file, and compares what JSON
// reports with testdata/suppress/want.txt.
func TestSuppressionFixture(t *testing.T) {
	r := run(t, "lint", "--config", suppressFixture+".idemcheck.yaml", "--format", "json", suppressFixture+"migrations")
	// fail-on: error in the configuration; the one unsuppressed error fails.
	assertCode(t, r, ExitFindings)
	var doc struct {
		Findings []struct {
			Rule     string `json:"rule"`
			Severity string `json:"severity"`
			Position struct {
				File string `json:"file"`
				Line int    `json:"line"`
				Col  int    `json:"column"`
			} `json:"position"`
			Suppressed *struct {
				Kind   string `json:"kind"`
				Reason string `json:"reason"`
			} `json:"suppressed"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	var got []string
	for _, f := range doc.Findings {
		line := fmt.Sprintf("%s:%d:%d %s %s", strings.TrimPrefix(f.Position.File, suppressFixture), f.Position.Line, f.Position.Col, f.Rule, f.Severity)
		if s := f.Suppressed; s != nil {
			line += fmt.Sprintf(" suppressed %s %q", s.Kind, s.Reason)
		}
		got = append(got, line)
	}
	data, err := os.ReadFile(suppressFixture + "want.txt")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings differ from want.txt\n--- got:\n%s\n--- want:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSuppressedHiddenFromText: the text report leaves suppressed findings
// out and counts them.
func TestSuppressedHiddenFromText(t *testing.T) {
	r := run(t, "lint", "--config", suppressFixture+".idemcheck.yaml", suppressFixture+"migrations")
	assertCode(t, r, ExitFindings)
	assertLacks(t, "stdout", r.stdout, "claims_namespace_key", "events_key", "seeds_key")
	assertContains(t, "stdout", r.stdout, "claims_scope_key", "1 error, 2 warnings, 0 info", "4 suppressed")
}

// TestConfigErrorNamesLine: a bad configuration stops the run with status 2
// and says where the mistake is (an unknown rule id: cli_test.go).
func TestConfigErrorNamesLine(t *testing.T) {
	dir := testtree.Write(t, map[string]string{".idemcheck.yaml": "fail_on: error\n", "schema.sql": cleanSQL})
	r := run(t, "lint", "--config", dir+"/.idemcheck.yaml", dir+"/schema.sql")
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, ".idemcheck.yaml:1:1: unknown key \"fail_on\"")
}

// TestFlagsOverrideConfig: --fail-on on the command line wins over the
// file's fail-on.
func TestFlagsOverrideConfig(t *testing.T) {
	r := run(t, "lint", "--config", suppressFixture+".idemcheck.yaml", "--fail-on", "none", suppressFixture+"migrations")
	assertCode(t, r, ExitOK)
}

// An excluded file is never read: not counted, not checked, and text in it
// that could not be split does not make the run fail.
func TestExcludedFileIsNotRead(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		".idemcheck.yaml":                 "exclude:\n  - \"migrations/*_seed.up.sql\"\n",
		"migrations/000001_a.up.sql":      holeSQL,
		"migrations/000002_seed.up.sql":   "INSERT INTO events VALUES ('unterminated);\n",
		"migrations/000002_seed.down.sql": "DELETE FROM events;\n",
	})
	r := run(t, "lint", "--config", dir+"/.idemcheck.yaml", dir+"/migrations")
	assertCode(t, r, ExitFindings)
	assertContains(t, "stdout", r.stdout, "error nullable-key", "in 1 file (2 statements)")
	assertLacks(t, "stdout", r.stdout, "seed", "input error")
}
