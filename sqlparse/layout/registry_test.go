package layout

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeLayoutTable: the README's table of layouts is the registry's,
// row for row (print it with Table after adding a layout), and
// docs/layouts.md, which says more of each, has a row for every layout.
func TestReadmeLayoutTable(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if table := Table(); !strings.Contains(string(data), table) {
		t.Errorf("README.md does not hold the registry's layout table:\n%s", table)
	}
	data, err = os.ReadFile("../../docs/layouts.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Defs() {
		if !strings.Contains(string(data), "\n| `"+string(d.Name)+"`") {
			t.Errorf("docs/layouts.md has no row for layout %s", d.Name)
		}
	}
}

// TestRegistryIsComplete: every layout can list a tree and has its README
// row, and names are unique.
func TestRegistryIsComplete(t *testing.T) {
	seen := map[Layout]bool{}
	for _, d := range Defs() {
		if seen[d.Name] {
			t.Errorf("layout %q is registered twice", d.Name)
		}
		seen[d.Name] = true
		if d.List == nil || d.Files == "" || d.UpPart == "" || d.Order == "" {
			t.Errorf("layout %q lacks its list function or a README column", d.Name)
		}
		if Lookup(d.Name) != d {
			t.Errorf("Lookup(%q) does not find it", d.Name)
		}
		if l, err := ParseLayout(strings.ToUpper(string(d.Name))); err != nil || l != d.Name {
			t.Errorf("ParseLayout(%q) = %q, %v", strings.ToUpper(string(d.Name)), l, err)
		}
	}
	if _, err := ParseLayout("nosuch"); err == nil || !strings.Contains(err.Error(), "golang-migrate, goose") {
		t.Errorf("ParseLayout(nosuch) = %v", err)
	}
}
