package layout

import (
	"os"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/golden"
)

// TestLayoutsPageTable: the layout table of docs/layouts.md is the
// registry's, row for row, between its markers (scripts/regen.sh writes it
// after a layout is added), and the page, which says more of each, has a
// row for every layout.
func TestLayoutsPageTable(t *testing.T) {
	const page, start, end = "../../docs/layouts.md", "<!-- layouts:start -->\n", "<!-- layouts:end -->"
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, start), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("docs/layouts.md has no %q ... %q block: put the two markers on lines of their own where the layout table goes, then run scripts/regen.sh", start, end)
	}
	if got, want := text[i+len(start):j], Table(); got != want {
		if golden.Update() {
			if err := os.WriteFile(page, []byte(text[:i+len(start)]+want+text[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			t.Errorf("the layout table of docs/layouts.md is stale; run scripts/regen.sh\n%s", golden.Diff(want, got))
		}
	}
	for _, d := range Defs() {
		if !strings.Contains(text, "\n| `"+string(d.Name)+"`") {
			t.Errorf("docs/layouts.md has no row for layout %s", d.Name)
		}
	}
}

// TestRegistryIsComplete: every layout can list a tree and has its row
// of the docs table, and names are unique.
func TestRegistryIsComplete(t *testing.T) {
	seen := map[Layout]bool{}
	for _, d := range Defs() {
		if seen[d.Name] {
			t.Errorf("layout %q is registered twice", d.Name)
		}
		seen[d.Name] = true
		if d.List == nil || d.Files == "" || d.UpPart == "" || d.Order == "" {
			t.Errorf("layout %q lacks its list function or a column of the docs table", d.Name)
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
