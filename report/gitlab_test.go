package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/golden"
)

func TestGitLabGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := GitLab(&buf, sampleDocument(), Options{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/gitlab.json.golden", buf.Bytes())
	var issues []gitlabIssue
	if err := json.Unmarshal(buf.Bytes(), &issues); err != nil {
		t.Fatal(err)
	}
	// Four findings, one suppressed.
	if len(issues) != 3 {
		t.Fatalf("%d issues, want 3", len(issues))
	}
	want := []string{"critical", "major", "info"}
	for i, is := range issues {
		if is.Severity != want[i] {
			t.Errorf("issue %d (%s) has severity %q, want %q", i, is.CheckName, is.Severity, want[i])
		}
		if is.Fingerprint == "" || is.Location.Path == "" || is.Location.Lines.Begin == 0 {
			t.Errorf("issue %d lacks fingerprint or location: %+v", i, is)
		}
	}
}

func TestGitLabPathsFromRoot(t *testing.T) {
	var buf bytes.Buffer
	if err := GitLab(&buf, sampleDocument(), Options{Paths: Paths{Prefix: "services/api"}}); err != nil {
		t.Fatal(err)
	}
	var issues []gitlabIssue
	if err := json.Unmarshal(buf.Bytes(), &issues); err != nil {
		t.Fatal(err)
	}
	if got := issues[0].Location.Path; got != "services/api/db/migrations/0042_events.up.sql" {
		t.Errorf("path %q is not relative to the repository root", got)
	}
}
