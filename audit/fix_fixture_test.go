package audit_test

import (
	"path/filepath"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
)

// findingKey identifies a finding across two runs of the same fixture.
func findingKey(f audit.Finding) string { return f.Rule + " " + f.Object }

// TestFixesCloseTheirFinding appends a finding's fix to its fixture and lints
// again: the finding must be gone and nothing new may appear. Every
// alternative must close every hole of its finding, the split of several
// nullable parts included.
func TestFixesCloseTheirFinding(t *testing.T) {
	tried := 0
	for _, path := range fixtureFiles(t) {
		src := readFixture(t, path)
		before, _ := lintSource(t, path, src)
		known := map[string]bool{}
		for _, f := range before {
			known[findingKey(f)] = true
		}
		for _, f := range before {
			if len(f.Fixes) == 0 {
				if f.Rule == "nullable-key" {
					t.Errorf("%s: %s has no fix", f.Pos, f.Object)
				}
				continue
			}
			for _, fix := range f.Fixes {
				tried++
				t.Run(filepath.Base(path)+"/"+f.Object+"/"+fix.Title, func(t *testing.T) {
					after, _ := lintSource(t, path, src+"\n"+fix.SQL+"\n")
					for _, g := range after {
						if findingKey(g) == findingKey(f) {
							t.Errorf("%s: still reported after the fix %q:\n%s\nmessage: %s", g.Pos, fix.Title, fix.SQL, g.Message)
						} else if !known[findingKey(g)] {
							t.Errorf("%s: the fix %q introduced %s %s: %s\n%s", g.Pos, fix.Title, g.Rule, g.Object, g.Message, fix.SQL)
						}
					}
				})
			}
		}
	}
	if tried == 0 {
		t.Fatal("no fix was tried")
	}
}
