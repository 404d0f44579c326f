package frameworks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/testkit/wanttest"
	"github.com/idemcheck/idemcheck/pipeline"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// The fixtures are schema files whose "# want:" (Ruby) or "// want:"
// (Prisma) comments say what lint must report on that line; a finding
// nobody wanted fails the test as a missing one does.
const fixtureRoot = "../testdata/frameworks"

// lintSchema runs the real pipeline over one schema file: translate,
// replay, then the audit pipeline as lint runs it (every rule, framework
// fixes, ignore directives).
func lintSchema(t *testing.T, path string, src []byte, pgVersion int) ([]audit.Finding, replayedSQL, *Source) {
	t.Helper()
	kind := Rails
	if strings.HasSuffix(path, ".prisma") {
		kind = Prisma
	}
	return lintSource(t, Translate(path, kind, src), pgVersion)
}

// lintSource is lintSchema for a schema already read, such as the files of
// a multi-file Prisma schema.
func lintSource(t *testing.T, s *Source, pgVersion int) ([]audit.Finding, replayedSQL, *Source) {
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
	res, err := pipeline.Run(pipeline.Input{Catalog: cat, History: r.History(), Directives: s.Directives()}, pipeline.Options{
		Rules: audit.Rules,
		Audit: audit.Options{PGVersion: pgVersion},
		Amend: func(findings []audit.Finding) { AddFixes(findings, cat, []*Source{s}, pgVersion) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings(), replayedSQL{cat, r.History()}, s
}

// replayedSQL is a catalog replayed from SQL with the history replay
// recorded on the way, which the audit takes beside it.
type replayedSQL struct {
	cat  *catalog.Catalog
	hist *catalog.History
}

// audit runs rules over the replayed catalog and its history.
func (r replayedSQL) audit(rules []*audit.Rule, opts audit.Options) []audit.Finding {
	opts.History = r.hist
	return audit.Run(r.cat, rules, opts)
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
			wants, err := wanttest.Parse(path, string(src))
			if err != nil {
				t.Fatal(err)
			}
			wanttest.Check(t, path, wants, findings, wanttest.Options{})
		})
	}
}
