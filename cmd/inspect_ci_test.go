package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inspect honours the configuration's object ignores, writes SARIF with
// logical locations, and writes its fixes to a file with --fix-sql.
func TestInspectConfigSARIFAndFixSQL(t *testing.T) {
	dsn := inspectTestDB(t, inspectHoleSchema+`
CREATE TABLE tags (org bigint NOT NULL, name text NOT NULL, label text, UNIQUE (org, name, label));`)
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".idemcheck.yaml")
	if err := os.WriteFile(cfg, []byte(`ignore:
  - object: public.tags.tags_org_name_label_key
    rule: nullable-key
    reason: labels are optional and deduplicated by the tagging service
`), 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--config", cfg, "--format", "sarif")
	if code != ExitFindings {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errOut)
	}
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					Logical []struct {
						FullyQualifiedName string `json:"fullyQualifiedName"`
					} `json:"logicalLocations"`
				} `json:"locations"`
				Suppressions []struct {
					Kind          string `json:"kind"`
					Justification string `json:"justification"`
				} `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &sarif); err != nil || len(sarif.Runs) != 1 {
		t.Fatalf("not one SARIF run: %v\n%s", err, out)
	}
	byObject := map[string]int{}
	for i, r := range sarif.Runs[0].Results {
		if len(r.Locations) == 1 && len(r.Locations[0].Logical) > 0 {
			byObject[r.Locations[0].Logical[0].FullyQualifiedName] = i
		}
	}
	results := sarif.Runs[0].Results
	ev, ok := byObject["public.events.events_idempotency"]
	if !ok || results[ev].RuleID != "nullable-key" || len(results[ev].Suppressions) != 0 {
		t.Errorf("events finding missing, or suppressed: %v", byObject)
	}
	tg, ok := byObject["public.tags.tags_org_name_label_key"]
	if !ok || len(results[tg].Suppressions) != 1 || results[tg].Suppressions[0].Kind != "external" ||
		!strings.Contains(results[tg].Suppressions[0].Justification, "tagging service") {
		t.Errorf("tags finding not kept as an external suppression with its reason:\n%s", out)
	}

	// The text report hides the suppressed finding and counts it.
	_, text, _ := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--config", cfg, "--color", "never")
	if strings.Contains(text, "tags_org_name_label_key") || !strings.Contains(text, "1 suppressed") {
		t.Errorf("text report should hide and count the suppressed finding:\n%s", text)
	}

	fix := filepath.Join(dir, "fixes.sql")
	if code, _, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--config", cfg, "--fix-sql", fix); code != ExitFindings {
		t.Fatalf("--fix-sql: exit %d\n%s", code, errOut)
	}
	b, err := os.ReadFile(fix)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "ON events (") || strings.Contains(string(b), "tags") {
		t.Errorf("fix file should hold the events fix and nothing for the suppressed tags finding:\n%s", b)
	}
	if code, _, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--fix-sql", dir); code != ExitUsage || !strings.Contains(errOut, "one file") {
		t.Errorf("--fix-sql DIR: exit %d, %q; want a usage error", code, errOut)
	}
}
