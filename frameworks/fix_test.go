package frameworks

import (
	"os"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
)

// railsChange cuts the calls out of a Rails fix's `def change ... end`, as a
// person copies them into schema.rb's define block after running the
// migration.
func railsChange(t *testing.T, fix audit.Fix) string {
	t.Helper()
	_, body, ok := strings.Cut(fix.SQL, "  def change\n")
	if !ok {
		_, body, ok = strings.Cut(fix.SQL, "  def up\n")
	}
	if !ok {
		t.Fatalf("Rails fix without def change or def up:\n%s", fix.SQL)
	}
	body, _, ok = strings.Cut(body, "\n  end\n")
	if !ok {
		t.Fatalf("Rails fix without end:\n%s", fix.SQL)
	}
	return body + "\n"
}

// appendToDefine puts calls before the last `end` of a schema.rb.
func appendToDefine(t *testing.T, src, calls string) string {
	t.Helper()
	i := strings.LastIndex(src, "\nend")
	if i < 0 {
		t.Fatal("schema.rb without a closing end")
	}
	return src[:i+1] + calls + src[i+1:]
}

// TestRailsFixesClose applies every Rails fix of every nullable-key finding
// of the Rails fixtures, as the fix says (its calls added to the schema
// the migration would dump), and lints again: the finding is gone and
// nothing new appears.
func TestRailsFixesClose(t *testing.T) {
	checked := 0
	for _, path := range fixtureFiles(t) {
		if !strings.HasSuffix(path, ".rb") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		findings, _, _ := lintSchema(t, path, src, 16)
		for _, f := range findings {
			if f.Rule != "nullable-key" || f.Suppressed != nil {
				continue
			}
			rails := 0
			for i, fix := range f.Fixes {
				if fix.Lang != "ruby" {
					continue
				}
				rails++
				if rails == 1 && i != 0 {
					t.Errorf("%s: the Rails fixes do not come first", f.Pos)
				}
				fixed := appendToDefine(t, string(src), railsChange(t, fix))
				after, _, _ := lintSchema(t, path, []byte(fixed), 16)
				for _, g := range after {
					if g.Suppressed != nil {
						continue
					}
					if g.Object == f.Object && g.Rule == f.Rule {
						t.Errorf("%s: still reported after the fix %q:\n%s", f.Pos, fix.Title, fix.SQL)
					}
					if !reportedBefore(findings, g) {
						t.Errorf("%s: the fix %q brought a new finding: %s %s", f.Pos, fix.Title, g.Rule, g.Message)
					}
				}
				checked++
			}
			if rails == 0 {
				t.Errorf("%s: nullable-key without a Rails fix", f.Pos)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no Rails fix was checked")
	}
	t.Logf("%d Rails fixes applied and linted again", checked)
}

func reportedBefore(before []audit.Finding, g audit.Finding) bool {
	for _, f := range before {
		if f.Rule == g.Rule && f.Object == g.Object {
			return true
		}
	}
	return false
}

// Below Rails 7.1 the SQL alternatives that build NULLS NOT DISTINCT say
// that schema.rb loses it (use structure.sql); a 7.1 dump keeps it, and its
// SQL fixes say nothing of the kind.
func TestRailsBefore71SQLCaveat(t *testing.T) {
	for file, want := range map[string]bool{"rails6_schema.rb": true, "rails8_schema.rb": false} {
		path := fixtureRoot + "/rails/" + file
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		findings, _, _ := lintSchema(t, path, src, 16)
		seen := 0
		for _, f := range findings {
			for _, fix := range f.Fixes {
				if fix.Lang != "" || !strings.Contains(fix.SQL, "NULLS NOT DISTINCT") {
					continue
				}
				seen++
				if got := strings.Contains(fix.Caveat, "Rails before 7.1 cannot write NULLS NOT DISTINCT into schema.rb"); got != want {
					t.Errorf("%s: %s: caveat %q, want the schema.rb warning %v", file, fix.Title, fix.Caveat, want)
				}
			}
		}
		if seen == 0 {
			t.Errorf("%s: no SQL fix with NULLS NOT DISTINCT", file)
		}
	}
}
