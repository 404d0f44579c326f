package inspect

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/internal/testkit/wanttest"
	"github.com/idemcheck/idemcheck/pipeline"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// fixtureWants reads the wants of one rule from a fixture file; the live
// test checks that rule only.
func fixtureWants(t *testing.T, path, rule string) []wanttest.Want {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wants, err := wanttest.Parse(path, string(src))
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(wants, func(w wanttest.Want) bool { return w.Rule != rule })
}

// TestLiveRulesMatchTheirFixtures applies each fixture of the rules that can
// read a live database to a fresh database on the real server, inspects it,
// and requires the rule to report exactly what the fixture's want comments
// say, message for message, with no extra finding.
func TestLiveRulesMatchTheirFixtures(t *testing.T) {
	adminConn(t).Close(t.Context()) // skip without a server
	rules := []string{"deferrable-unique", "partition-local-unique", "key-without-unique", "idempotency-table-shape", "invalid-unique-index"}
	for _, r := range audit.Rules {
		if r.Needs == audit.Live && !slices.Contains(rules, r.ID) {
			t.Errorf("%s needs a live catalog, so only this test checks its fixtures: add it to the list", r.ID)
		}
	}
	checked := 0
	for _, id := range rules {
		rule := audit.Lookup(id)
		if rule == nil || rule.Needs == audit.Migrations {
			t.Fatalf("%s: not a registered rule that runs live", id)
		}
		files, _ := filepath.Glob(filepath.Join("../testdata/rules", id, "*.sql"))
		if len(files) == 0 {
			t.Fatalf("%s: no fixtures", id)
		}
		for _, path := range files {
			t.Run(id+"/"+filepath.Base(path), func(t *testing.T) {
				findings := inspectFixture(t, path, rule, 0)
				checked += matchLive(t, path, id, fixtureWants(t, path, id), findings)
			})
		}
	}
	if checked == 0 {
		t.Error("no live finding was checked")
	}
}

// inspectFixture builds a database from the fixture and judges what inspect
// reads back through the audit pipeline inspect runs, with rule only. A
// nonzero major pretends the server is that version.
func inspectFixture(t *testing.T, path string, rule *audit.Rule, major int) []audit.Finding {
	t.Helper()
	_, _, statements, _ := lintInput(t, path)
	dsn := newTestDB(t, "")
	if err := applyStatements(t, dsn, statements); err != nil {
		t.Fatal(err)
	}
	s, snap := readTest(t, dsn, Filter{})
	if major != 0 {
		snap.Catalog.ServerVersion = major * 10000
	}
	res, err := pipeline.Run(pipeline.Input{Catalog: snap.Catalog}, pipeline.Options{
		Rules: []*audit.Rule{rule},
		Audit: audit.Options{PGVersion: s.ServerMajor(), Live: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings()
}

// matchLive pairs each want of rule with one finding and fails on the rest;
// it returns how many findings matched. Lines do not count live: a live
// catalog has no files.
func matchLive(t *testing.T, path, rule string, wants []wanttest.Want, findings []audit.Finding) int {
	t.Helper()
	return wanttest.Check(t, path, wants, findings, wanttest.Options{AnyLine: true, Rules: func(id string) bool { return id == rule }})
}

// TestLiveNNDUnsupported: the live server's own version decides. The test
// server is 15 or later, where NULLS NOT DISTINCT is fine; the same catalog
// read from a server that reported version 14 gets the fixture's findings.
func TestLiveNNDUnsupported(t *testing.T) {
	pgtest.RequireVersion(t, 150000, "NULLS NOT DISTINCT")
	rule := audit.Lookup("nnd-unsupported")
	path := "../testdata/rules/nnd-unsupported/before_15.sql"
	if fs := inspectFixture(t, path, rule, 0); len(fs) != 0 {
		t.Errorf("a server that runs NULLS NOT DISTINCT reported: %s", fs[0].Message)
	}
	wants := fixtureWants(t, path, rule.ID)
	if n := matchLive(t, path, rule.ID, wants, inspectFixture(t, path, rule, 14)); n != len(wants) || n == 0 {
		t.Errorf("matched %d of %d wants", n, len(wants))
	}
}

// liveExampleSetup is what the doc examples of the rules that need a live
// catalog take for granted: for invalid-unique-index, a table whose rows
// already collide, so that the Bad example's concurrent build fails.
var liveExampleSetup = map[string]string{
	"invalid-unique-index": "CREATE TABLE events (id bigint PRIMARY KEY, org bigint NOT NULL, tx text NOT NULL);\n" +
		"INSERT INTO events VALUES (1, 1, 'a'), (2, 1, 'a'), (3, 2, 'b');\n",
}

// TestLiveRuleExamples runs the Bad and Good examples of every rule that
// only a live catalog shows on the real server, then inspects it: the Bad
// example must make the rule report and the Good one must not. (audit's
// TestRuleExamples lints the examples of the other rules.) The Bad example
// may fail on the server, as a failed build is what it shows; the Good one
// must run.
func TestLiveRuleExamples(t *testing.T) {
	adminConn(t).Close(t.Context()) // skip without a server
	checked := 0
	for _, rule := range audit.Rules {
		if rule.Needs != audit.Live {
			continue
		}
		checked++
		t.Run(rule.ID, func(t *testing.T) {
			for _, ex := range []struct {
				name, sql string
				fires     bool
			}{{"Bad", rule.Bad, true}, {"Good", rule.Good, false}} {
				dsn := newTestDB(t, liveExampleSetup[rule.ID])
				conn := connectTo(t, dsn)
				split := sqlparse.Split(sqlparse.Input{Path: rule.ID + "-" + ex.name + ".sql", Text: ex.sql})
				for _, st := range split.Statements {
					if _, err := conn.Exec(t.Context(), st.Text, pgx.QueryExecModeSimpleProtocol); err != nil {
						if ex.fires {
							t.Logf("%s example: %s: %v", ex.name, st.Pos, err)
						} else {
							t.Errorf("%s example: %s: %v", ex.name, st.Pos, err)
						}
					}
				}
				s, snap := readTest(t, dsn, Filter{})
				fired := false
				for _, f := range audit.Run(snap.Catalog, []*audit.Rule{rule}, audit.Options{PGVersion: s.ServerMajor(), Live: true}) {
					fired = true
					t.Logf("%s example: %s", ex.name, f.Message)
				}
				if fired != ex.fires {
					t.Errorf("%s example: %s reports %v, want %v\n%s", ex.name, rule.ID, fired, ex.fires, ex.sql)
				}
			}
		})
	}
	if checked == 0 {
		t.Error("no rule needs a live catalog: nothing was checked")
	}
}
