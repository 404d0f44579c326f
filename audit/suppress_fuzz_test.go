package audit

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/catalog"
)

// FuzzSuppressDirective parses an arbitrary comment as a suppression
// directive and runs Suppress with it over one finding. Nothing may panic; a
// directive either is well formed (a known rule and a reason) or carries a
// Problem, and only a well-formed one may suppress.
func FuzzSuppressDirective(f *testing.F) {
	for _, seed := range []string{
		" idemcheck:ignore nullable-key legacy rows are cleaned nightly",
		"idemcheck:ignore-file optional-unique emails are optional here",
		"idemcheck:ignore", "idemcheck:", "idemcheck:ignore nullable-key", "idemcheck:ignore no-such-rule why",
		"idemcheck:ignorefile x y", "  idemcheck:ignore\tnullable-key\u00a0reason\u2028more ",
		"idemcheck:ignore nullable-key \xff\xfe", "idemcheck:ignore-file\n",
		"IDEMCHECK:IGNORE nullable-key caps",
	} {
		f.Add(seed, 3)
	}
	f.Fuzz(func(t *testing.T, text string, line int) {
		pos := catalog.Pos{File: "f.sql", Line: line, Col: 1}
		comments := []SourceComment{{Text: text, Pos: pos}}
		spans := []Span{{Start: catalog.Pos{File: "f.sql", Line: line + 1, Col: 1}, End: catalog.Pos{File: "f.sql", Line: line + 1, Col: 40}}}
		ds := FileDirectives(comments, spans)
		if len(ds) > 1 {
			t.Fatalf("one comment gave %d directives", len(ds))
		}
		if !strings.HasPrefix(strings.TrimSpace(text), directivePrefix) && len(ds) != 0 {
			t.Fatalf("%q is no directive but gave %+v", text, ds)
		}
		for _, d := range ds {
			if d.Problem == "" && (Lookup(d.Rule) == nil || strings.TrimSpace(d.Reason) == "") {
				t.Fatalf("%q: accepted without a known rule and a reason: %+v", text, d)
			}
		}
		finding := Finding{Rule: NullableKey.ID, Severity: Error, Object: "public.t.i",
			Pos: catalog.Pos{File: "f.sql", Line: line + 1, Col: 1}}
		out := Suppress([]Finding{finding}, ds, func(string) bool { return true })
		for _, fd := range out {
			if fd.Suppressed != nil && (len(ds) == 0 || ds[0].Problem != "") {
				t.Fatalf("%q suppressed a finding without a valid directive", text)
			}
		}
	})
}
