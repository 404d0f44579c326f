package audit_test

import (
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

func TestFingerprint(t *testing.T) {
	f := audit.Finding{Rule: "nullable-key", Object: "public.events.events_key", Columns: []string{"ext"},
		Message: "events.events_key (org, ext): ext may be NULL", Pos: catalog.Pos{File: "m/1.sql", Line: 7, Col: 1}}
	same := func(name string, g audit.Finding, want bool) {
		t.Helper()
		if got := f.Fingerprint() == g.Fingerprint(); got != want {
			t.Errorf("%s: same fingerprint = %v, want %v", name, got, want)
		}
	}
	moved := f
	moved.Pos = catalog.Pos{File: "m/9.sql", Line: 40, Col: 5}
	same("moved to another line and file", moved, true)
	live := f
	live.Pos = catalog.Pos{}
	live.Related = []audit.Related{{Message: "x"}}
	same("the same finding from a live database", live, true)
	reworded := f
	reworded.Message = "other words"
	same("reworded", reworded, true)
	other := f
	other.Rule = "optional-unique"
	same("another rule", other, false)
	wider := f
	wider.Columns = []string{"ext", "org"}
	same("another key part joins the hole", wider, false)
	renamed := f
	renamed.Object = "public.events.events_ext_key"
	same("the index renamed", renamed, false)
	// Ignore directives that suppress nothing are about their file.
	a := audit.Finding{Rule: "unused-ignore", Object: "idemcheck:ignore nullable-key", Pos: catalog.Pos{File: "a.sql", Line: 1}}
	b := a
	b.Pos = catalog.Pos{File: "b.sql", Line: 1}
	if a.Fingerprint() == b.Fingerprint() {
		t.Error("unused ignore directives in two files share a fingerprint")
	}
}
