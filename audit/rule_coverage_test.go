package audit_test

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/testkit/wanttest"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// TestEveryRuleHasFixtures: a rule is specified by its fixture directory,
// testdata/rules/<rule-id>/, and at least one of its files wants a finding
// of that rule. A rule added without fixtures fails here.
func TestEveryRuleHasFixtures(t *testing.T) {
	for _, r := range audit.Rules {
		files, err := filepath.Glob(filepath.Join(fixtureRoot, r.ID, "*.sql"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Errorf("%s: no fixture: add %s/%s/<case>.sql with -- want: comments", r.ID, fixtureRoot, r.ID)
			continue
		}
		wanted := false
		for _, path := range files {
			wants, err := wanttest.Parse(path, readFixture(t, path))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range wants {
				wanted = wanted || w.Rule == r.ID
			}
		}
		if !wanted {
			t.Errorf("%s: no fixture in %s/%s wants a finding of the rule", r.ID, fixtureRoot, r.ID)
		}
	}
}

// exampleSetup is what a rule's doc examples take for granted, run before
// each: the Bad and Good examples show the statements that matter, not the
// whole schema.
var exampleSetup = map[string]string{
	"unique-dropped": "CREATE TABLE events (org bigint NOT NULL, tx text NOT NULL);\n" +
		"CREATE UNIQUE INDEX events_org_tx ON events (org, tx);\n",
	"nnd-unsupported": "CREATE TABLE events (organization_id bigint NOT NULL, external_id text);\n",
	"unused-ignore":   "CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);\n",
}

// exampleVersion is the "-- --pg-version N" an example starts with, as the
// command line it stands for; 16 without one.
var exampleVersion = regexp.MustCompile(`(?m)^-- --pg-version (\d+)$`)

// TestRuleExamples lints each rule's Bad example, which must make the rule
// report, and its Good example, which must not: the docs show what the rule
// does. The examples of a rule that needs a live catalog run on a server,
// in inspect's TestLiveRuleExamples.
func TestRuleExamples(t *testing.T) {
	for _, r := range audit.Rules {
		t.Run(r.ID, func(t *testing.T) {
			if r.Needs == audit.Live {
				t.Skip("lint never runs a rule that needs a live catalog: inspect's TestLiveRuleExamples runs its examples on a server")
			}
			for _, ex := range []struct {
				name, sql string
				fires     bool
			}{{"Bad", r.Bad, true}, {"Good", r.Good, false}} {
				src := exampleSetup[r.ID] + ex.sql + "\n"
				if m := exampleVersion.FindStringSubmatch(ex.sql); m != nil {
					v, _ := strconv.Atoi(m[1])
					src = "-- pg-version: " + strconv.Itoa(v) + "\n" + src
				}
				path := r.ID + "-" + ex.name + ".sql"
				// An example that names what does not exist would prove
				// nothing: it must replay without a single note.
				replayer := sqlparse.NewReplayer(catalog.New())
				for _, st := range sqlparse.Split(sqlparse.Input{Path: path, Text: src}).Statements {
					for _, d := range replayer.Apply(st) {
						t.Errorf("%s example: %s", ex.name, d)
					}
				}
				findings, _ := lintSource(t, path, src)
				fired := false
				for _, f := range findings {
					fired = fired || f.Rule == r.ID
				}
				if fired != ex.fires {
					t.Errorf("%s example: %s reports %v, want %v\n%s\nfindings: %+v", ex.name, r.ID, fired, ex.fires, src, findings)
				}
			}
		})
	}
}
