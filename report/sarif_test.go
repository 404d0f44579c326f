package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/internal/testkit/golden"
)

// goldenRules stand in for the registry in the SARIF golden test: the rules
// of sampleDocument's findings with short fixed docs, one of each severity
// and of each catalog a rule needs. The golden file shows how a rule is
// written into SARIF without repeating every rule's doc, so editing a
// rule's doc does not rewrite it; TestSARIFContent checks the real
// registry.
func goldenRules() []*audit.Rule {
	return []*audit.Rule{
		{ID: "nullable-key", Title: "unique key with a part that may be NULL", Severity: audit.Error, Needs: audit.Either,
			Doc:  "A unique index treats NULLs as distinct,\nso rows with a NULL key part never collide.",
			Bad:  "CREATE UNIQUE INDEX t_ab ON t (a, b);  -- b may be NULL",
			Good: "CREATE UNIQUE INDEX t_ab ON t (a, b) NULLS NOT DISTINCT;"},
		{ID: "optional-unique", Title: "unique when present", Severity: audit.Info, Needs: audit.Live,
			Doc: "A one-column unique key that may be NULL: unique when present."},
		{ID: "unique-dropped", Title: "unique index dropped with no replacement", Severity: audit.Warning, Needs: audit.Migrations,
			Doc: "A migration drops a unique index and none replaces it.",
			Bad: "DROP INDEX t_ab;"},
	}
}

// TestSARIFGolden compares the whole log with a golden file, describing the
// fixed goldenRules rather than the registry.
func TestSARIFGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := SARIF(&buf, sampleDocument(), Options{Paths: Paths{Prefix: "services/api"}, Rules: goldenRules()}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/report.sarif.golden", buf.Bytes())
}

// TestSARIFContent checks what code scanning relies on, independently of the
// golden file: rule metadata from the rule docs, repository-relative paths,
// related locations, fixes, suppressions with their reasons, and a logical
// location for an object without a file.
func TestSARIFContent(t *testing.T) {
	doc := sampleDocument()
	doc.Findings = append(doc.Findings, audit.Finding{
		Rule: "nullable-key", Severity: audit.Error, Object: "billing.invoices.invoices_number_key",
		Message: "invoices.invoices_number_key (number): number may be NULL",
	})
	var buf bytes.Buffer
	if err := SARIF(&buf, doc, Options{Paths: Paths{Prefix: "./services/api/"}}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string `json:"id"`
						Help struct {
							Text string `json:"text"`
						} `json:"help"`
						DefaultConfiguration struct {
							Level string `json:"level"`
						} `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation *struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
					LogicalLocations []struct {
						FullyQualifiedName string `json:"fullyQualifiedName"`
						Kind               string `json:"kind"`
					} `json:"logicalLocations"`
				} `json:"locations"`
				RelatedLocations []json.RawMessage `json:"relatedLocations"`
				Fixes            []json.RawMessage `json:"fixes"`
				Suppressions     []struct {
					Kind          string `json:"kind"`
					Justification string `json:"justification"`
				} `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q with %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	for _, r := range audit.Rules {
		found := false
		for _, sr := range run.Tool.Driver.Rules {
			if sr.ID == r.ID {
				found = true
				if !strings.Contains(sr.Help.Text, strings.TrimSpace(r.Doc)[:20]) {
					t.Errorf("%s: help lacks the rule doc: %q", r.ID, sr.Help.Text)
				}
				if sr.DefaultConfiguration.Level != sarifLevel(r.Severity) {
					t.Errorf("%s: default level %q", r.ID, sr.DefaultConfiguration.Level)
				}
			}
		}
		if !found {
			t.Errorf("rule %s missing from the tool metadata", r.ID)
		}
	}
	if len(run.Results) != len(doc.Findings) {
		t.Fatalf("%d results for %d findings (suppressed ones must stay)", len(run.Results), len(doc.Findings))
	}
	first := run.Results[0]
	if uri := first.Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "services/api/db/migrations/0042_events.up.sql" {
		t.Errorf("uri %q is not relative to the repository root", uri)
	}
	if len(first.RelatedLocations) != 1 || len(first.Fixes) != 3 {
		t.Errorf("first result has %d related locations and %d fixes, want 1 and 3", len(first.RelatedLocations), len(first.Fixes))
	}
	sup := run.Results[3].Suppressions
	if len(sup) != 1 || sup[0].Kind != "inSource" || sup[0].Justification != "global tags have no owner" {
		t.Errorf("suppressed finding has suppressions %+v", sup)
	}
	if run.Results[2].Level != "note" {
		t.Errorf("info finding has level %q, want note", run.Results[2].Level)
	}
	live := run.Results[4].Locations[0]
	if live.PhysicalLocation != nil || len(live.LogicalLocations) != 1 ||
		live.LogicalLocations[0].FullyQualifiedName != "billing.invoices.invoices_number_key" || live.LogicalLocations[0].Kind != "index" {
		t.Errorf("live finding location %+v, want the index as a logical location", live)
	}
}

func TestSARIFAbsolutePaths(t *testing.T) {
	s := sarifWriter{paths: Paths{Prefix: "sub", Root: "/home/ci/repo"}}
	cases := map[string]sarifArtifactLocation{
		"db/a b.sql":                  {URI: "sub/db/a%20b.sql", URIBaseID: srcRoot},
		"./db/a.sql":                  {URI: "sub/db/a.sql", URIBaseID: srcRoot},
		"/home/ci/repo/db/a.sql":      {URI: "db/a.sql", URIBaseID: srcRoot},
		"/elsewhere/a.sql":            {URI: "file:///elsewhere/a.sql"},
		"/home/ci/repository/x/a.sql": {URI: "file:///home/ci/repository/x/a.sql"},
	}
	for in, want := range cases {
		if got := s.artifact(in); got != want {
			t.Errorf("artifact(%q) = %+v, want %+v", in, got, want)
		}
	}
}
