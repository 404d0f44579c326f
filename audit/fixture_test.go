package audit_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/testkit/wanttest"
	"github.com/idemcheck/idemcheck/pipeline"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// fixtureRoot holds one directory per rule id; every .sql file in it is a
// standalone schema whose "-- want:" comments say what must be reported.
const fixtureRoot = "../testdata/rules"

// lintSource runs the real pipeline over one file: split, replay, then the
// audit pipeline lint runs (lintCatalog), with the file's ignore comments.
// Input the parser cannot read fails the test.
func lintSource(t *testing.T, path, src string) ([]audit.Finding, *catalog.Catalog) {
	t.Helper()
	cat := catalog.New()
	res := sqlparse.Split(sqlparse.Input{Path: path, Text: src})
	diags := append([]sqlparse.Diagnostic(nil), res.Diagnostics...)
	r := sqlparse.NewReplayer(cat)
	for _, st := range res.Statements {
		diags = append(diags, r.Apply(st)...)
	}
	for _, d := range diags {
		if d.Level == sqlparse.Error {
			t.Errorf("%s", d)
		} else {
			t.Logf("%s", d)
		}
	}
	findings := lintCatalog(t, cat, r.History(), fileDirectives(res), fixtureVersion(t, src))
	// Keep only what a user would see reported.
	return slices.DeleteFunc(findings, func(f audit.Finding) bool { return f.Suppressed != nil }), cat
}

// lintCatalog judges cat, with the history replay recorded on the way (nil
// for none), as lint does, through the audit pipeline: every registered
// rule, the ignore directives (an unused one is reported), suppressed
// findings marked.
func lintCatalog(t *testing.T, cat *catalog.Catalog, hist *catalog.History, directives []audit.Directive, pgVersion int) []audit.Finding {
	t.Helper()
	res, err := pipeline.Run(pipeline.Input{Catalog: cat, History: hist, Directives: directives},
		pipeline.Options{Rules: audit.Rules, Audit: audit.Options{PGVersion: pgVersion}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings()
}

// runsOnMigrations reports whether lint runs the rule: the wants of a rule
// that needs a live catalog are checked by inspect's live fixture test.
func runsOnMigrations(id string) bool {
	return audit.Lookup(id).Needs != audit.Live
}

// pgVersionComment sets the target version of a fixture ("-- pg-version:
// 14"); without one, fixtures target PostgreSQL 16.
var pgVersionComment = regexp.MustCompile(`(?m)^-- pg-version: (\d+)$`)

func fixtureVersion(t *testing.T, src string) int {
	m := pgVersionComment.FindStringSubmatch(src)
	if m == nil {
		return 16
	}
	v, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatalf("bad pg-version comment: %v", err)
	}
	return v
}

// fixtureFiles lists every fixture, sorted.
func fixtureFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(fixtureRoot, "*", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no fixtures under %s", fixtureRoot)
	}
	sort.Strings(files)
	return files
}

func readFixture(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestRuleFixtures(t *testing.T) {
	for _, path := range fixtureFiles(t) {
		rule := filepath.Base(filepath.Dir(path))
		if audit.Lookup(rule) == nil {
			t.Errorf("%s: directory names no registered rule", path)
			continue
		}
		t.Run(rule+"/"+filepath.Base(path), func(t *testing.T) {
			src := readFixture(t, path)
			findings, _ := lintSource(t, path, src)
			wants, err := wanttest.Parse(path, src)
			if err != nil {
				t.Fatal(err)
			}
			wanttest.Check(t, path, wants, findings, wanttest.Options{Rules: runsOnMigrations})
		})
	}
}

func TestRuleFixtureCounts(t *testing.T) {
	// The fixture set is the rules' specification; keep it from shrinking.
	min := map[string]int{"nullable-key": 25, "optional-unique": 8, "not-null-dropped": 15, "unique-dropped": 25,
		"deferrable-unique": 7, "nnd-unsupported": 6, "partition-local-unique": 12, "on-conflict-hole": 15,
		"key-without-unique": 10, "idempotency-table-shape": 7}
	count := map[string]int{}
	for _, path := range fixtureFiles(t) {
		src := readFixture(t, path)
		rule := filepath.Base(filepath.Dir(path))
		// A case is a want, or a silent unique index.
		for _, line := range strings.Split(src, "\n") {
			upper := strings.ToUpper(line)
			if strings.Contains(line, "-- want:") || strings.Contains(upper, "UNIQUE") {
				count[rule]++
			}
		}
	}
	for rule, n := range min {
		if count[rule] < n {
			t.Errorf("%s has %d fixture cases, want at least %d", rule, count[rule], n)
		}
	}
}
