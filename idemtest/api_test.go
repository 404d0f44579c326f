package idemtest_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/api.golden from go doc -all")

// TestAPIIsReviewed guards the public contract: the documentation and
// declarations of idemtest and idemtest/idemsql, as go doc -all prints
// them, must equal testdata/api.golden. A change to the API or its docs
// fails here until the golden is rewritten (go test ./idemtest -run
// TestAPIIsReviewed -update) and the diff is reviewed with the change.
func TestAPIIsReviewed(t *testing.T) {
	var got strings.Builder
	for _, pkg := range []string{module + "/idemtest", module + "/idemtest/idemsql"} {
		out, err := goCommand(t, nil, "doc", "-all", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go doc -all %s: %v\n%s", pkg, err, out)
		}
		got.WriteString("=== go doc -all " + pkg + "\n")
		got.Write(out)
		got.WriteString("\n")
	}
	golden := filepath.Join("testdata", "api.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./idemtest -run TestAPIIsReviewed -update writes it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("the public API or its documentation changed: review the change, then rewrite %s with\n"+
			"  go test ./idemtest -run TestAPIIsReviewed -update\n%s", golden, lineDiff(string(want), got.String()))
	}
}

// lineDiff shows the lines of want and got that differ, first to last.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	start := 0
	for start < len(w) && start < len(g) && w[start] == g[start] {
		start++
	}
	ew, eg := len(w), len(g)
	for ew > start && eg > start && w[ew-1] == g[eg-1] {
		ew, eg = ew-1, eg-1
	}
	var b strings.Builder
	b.WriteString("golden:\n")
	for _, l := range w[start:ew] {
		b.WriteString("- " + l + "\n")
	}
	b.WriteString("go doc:\n")
	for _, l := range g[start:eg] {
		b.WriteString("+ " + l + "\n")
	}
	return b.String()
}
