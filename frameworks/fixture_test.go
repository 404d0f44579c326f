package frameworks

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// The fixtures are schema files whose "# want:" (Ruby) or "// want:"
// (Prisma) comments say what lint must report on that line; a finding
// nobody wanted fails the test as a missing one does.
const fixtureRoot = "../testdata/frameworks"

type want struct {
	rule string
	line int
	re   *regexp.Regexp
}

var (
	wantComment = regexp.MustCompile(`(?:#|//|--) want:(.*)$`)
	wantItem    = regexp.MustCompile(`^\s*([a-z0-9-]+)\s+"((?:[^"\\]|\\.)*)"`)
)

func parseWants(t *testing.T, path, src string) []want {
	t.Helper()
	var out []want
	for i, line := range strings.Split(src, "\n") {
		m := wantComment.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rest := m[1]
		for strings.TrimSpace(rest) != "" {
			item := wantItem.FindStringSubmatch(rest)
			if item == nil {
				t.Fatalf("%s:%d: malformed want comment: %q", path, i+1, rest)
			}
			if audit.Lookup(item[1]) == nil {
				t.Fatalf("%s:%d: unknown rule %q", path, i+1, item[1])
			}
			out = append(out, want{rule: item[1], line: i + 1, re: regexp.MustCompile(strings.ReplaceAll(item[2], `\"`, `"`))})
			rest = rest[len(item[0]):]
		}
	}
	return out
}

// lintSchema runs the real pipeline over one schema file: translate,
// replay, every rule, ignore directives, framework fixes.
func lintSchema(t *testing.T, path string, src []byte, pgVersion int) ([]audit.Finding, *catalog.Catalog, *Source) {
	t.Helper()
	kind := Rails
	if strings.HasSuffix(path, ".prisma") {
		kind = Prisma
	}
	return lintSource(t, Translate(path, kind, src), pgVersion)
}

// lintSource is lintSchema for a schema already read, such as the files of
// a multi-file Prisma schema.
func lintSource(t *testing.T, s *Source, pgVersion int) ([]audit.Finding, *catalog.Catalog, *Source) {
	t.Helper()
	cat := catalog.New()
	r := sqlparse.NewReplayer(cat)
	for _, d := range s.Replay(r.Apply) {
		if d.Level == sqlparse.Error {
			t.Errorf("%s", d)
		} else {
			t.Logf("%s", d)
		}
	}
	findings := audit.Run(cat, audit.Rules, audit.Options{PGVersion: pgVersion})
	findings = audit.Suppress(findings, s.Directives(), func(string) bool { return true })
	AddFixes(findings, cat, []*Source{s}, pgVersion)
	return findings, cat, s
}

func checkWants(t *testing.T, path string, wants []want, findings []audit.Finding) {
	t.Helper()
	used := make([]bool, len(findings))
	for _, w := range wants {
		found := false
		var near []string
		for i, f := range findings {
			if used[i] || f.Suppressed != nil || f.Rule != w.rule || f.Pos.File != path || f.Pos.Line != w.line {
				continue
			}
			if w.re.MatchString(f.Message) {
				used[i], found = true, true
				break
			}
			near = append(near, f.Message)
		}
		if !found {
			t.Errorf("%s:%d: no %s finding matching %q (at this line: %q)", path, w.line, w.rule, w.re, near)
		}
	}
	for i, f := range findings {
		if !used[i] && f.Suppressed == nil {
			t.Errorf("%s: unexpected %s finding: %s", f.Pos, f.Rule, f.Message)
		}
	}
}

func fixtureFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"rails/*.rb", "prisma/*.prisma"} {
		m, err := filepath.Glob(filepath.Join(fixtureRoot, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	return files
}

func TestFixtures(t *testing.T) {
	for _, path := range fixtureFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			findings, _, _ := lintSchema(t, path, src, 16)
			checkWants(t, path, parseWants(t, path, string(src)), findings)
		})
	}
}
