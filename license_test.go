package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestThirdPartyListsEveryModule keeps THIRD_PARTY.md true: every module
// the command links (go list -deps, test-only modules excluded) has a row,
// and no row names a module the binary no longer links.
func TestThirdPartyListsEveryModule(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}{{end}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps .: %v", err)
	}
	linked := map[string]bool{}
	for _, m := range strings.Fields(string(out)) {
		linked[m] = true
	}
	data, err := os.ReadFile("THIRD_PARTY.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		if name := strings.TrimSpace(cells[1]); strings.Contains(name, ".") && !strings.Contains(name, " ") {
			listed[name] = true
		}
	}
	for m := range linked {
		if !listed[m] {
			t.Errorf("THIRD_PARTY.md has no row for %s, which the binary links: add it with its licence", m)
		}
	}
	for m := range listed {
		if !linked[m] {
			t.Errorf("THIRD_PARTY.md lists %s, which the binary no longer links: remove its row", m)
		}
	}
	for _, f := range []string{"LICENSE", "NOTICE"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s: %v (the release archives carry it)", f, err)
		}
	}
}
