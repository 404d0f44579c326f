package audit_test

import (
	"slices"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// fileDirectives are the ignore directives of one file, read as lint reads
// them, so that a fixture's ignore comments work as they do in lint.
func fileDirectives(split sqlparse.SplitResult) []audit.Directive {
	return audit.FileDirectives(toComments(split.Comments), toSpans(split.Statements))
}

func suppressFixture(t *testing.T, src string) []audit.Finding {
	t.Helper()
	const path = "s.sql"
	split := sqlparse.Split(sqlparse.Input{Path: path, Text: src})
	cat := catalog.New()
	r := sqlparse.NewReplayer(cat)
	for _, st := range split.Statements {
		r.Apply(st)
	}
	return lintCatalog(t, cat, r.History(), fileDirectives(split), 16)
}

func toComments(cs []sqlparse.Comment) []audit.SourceComment {
	var out []audit.SourceComment
	for _, c := range cs {
		out = append(out, audit.SourceComment{Text: c.Text, Pos: c.Pos})
	}
	return out
}

func toSpans(sts []sqlparse.Statement) []audit.Span {
	var out []audit.Span
	for _, st := range sts {
		out = append(out, audit.Span{Start: st.Pos, End: st.PosAt(len(st.Text))})
	}
	return out
}

// TestSuppressionKeepsFindingsMarked checks what JSON and SARIF rely on: a
// suppressed finding stays in the list with its kind, reason and the
// directive's position.
func TestSuppressionKeepsFindingsMarked(t *testing.T) {
	src := `CREATE TABLE t (a int NOT NULL, b int);
-- idemcheck:ignore nullable-key b is NULL only for rows imported before 2019
CREATE UNIQUE INDEX t_a_b ON t (a, b);
`
	fs := suppressFixture(t, src)
	if len(fs) != 1 {
		t.Fatalf("want the one nullable-key finding, got %+v", fs)
	}
	s := fs[0].Suppressed
	if s == nil || s.Kind != audit.SuppressInline || s.Reason != "b is NULL only for rows imported before 2019" || s.Pos.Line != 2 {
		t.Errorf("suppression %+v", s)
	}
}

// TestSuppressionCoversOnlyTheNextStatement: the second index is not
// covered by the directive above the first.
func TestSuppressionCoversOnlyTheNextStatement(t *testing.T) {
	src := `CREATE TABLE t (a int NOT NULL, b int, c int);
-- idemcheck:ignore nullable-key intended
CREATE UNIQUE INDEX t_a_b ON t (a, b);
CREATE UNIQUE INDEX t_a_c ON t (a, c);
`
	var open []string
	for _, f := range suppressFixture(t, src) {
		if f.Suppressed == nil {
			open = append(open, f.Object)
		}
	}
	if !slices.Equal(open, []string{"public.t.t_a_c"}) {
		t.Errorf("unsuppressed findings %q, want only public.t.t_a_c", open)
	}
}

// TestConfigIgnore: an object-level entry silences that object's finding,
// and an entry that matches nothing is reported at its own position.
func TestConfigIgnore(t *testing.T) {
	f := audit.Finding{Rule: "nullable-key", Severity: audit.Error, Object: "public.events.events_key"}
	ds := []audit.Directive{
		{Kind: audit.SuppressConfig, Rule: "nullable-key", Object: "public.events.events_key", Reason: "legacy", Pos: catalog.Pos{File: ".idemcheck.yaml", Line: 4, Col: 5}},
		{Kind: audit.SuppressConfig, Rule: "nullable-key", Object: "public.gone.gone_key", Reason: "old", Pos: catalog.Pos{File: ".idemcheck.yaml", Line: 7, Col: 5}},
	}
	fs := audit.Suppress([]audit.Finding{f}, ds, func(string) bool { return true })
	if len(fs) != 2 {
		t.Fatalf("got %+v", fs)
	}
	var kept, unused *audit.Finding
	for i := range fs {
		switch fs[i].Rule {
		case "nullable-key":
			kept = &fs[i]
		case "unused-ignore":
			unused = &fs[i]
		}
	}
	if kept == nil || kept.Suppressed == nil || kept.Suppressed.Kind != audit.SuppressConfig {
		t.Errorf("config entry did not suppress: %+v", kept)
	}
	if unused == nil || unused.Pos.Line != 7 {
		t.Errorf("stale config entry not reported at line 7: %+v", unused)
	}
}

// TestUnusedIgnoreOnlyForRulesThatRan: with --rule optional-unique, a
// nullable-key directive cannot be judged and is not reported.
func TestUnusedIgnoreOnlyForRulesThatRan(t *testing.T) {
	ds := audit.FileDirectives([]audit.SourceComment{{Text: " idemcheck:ignore nullable-key intended", Pos: catalog.Pos{File: "a.sql", Line: 1, Col: 1}}}, nil)
	ran := func(r string) bool { return r != "nullable-key" }
	if fs := audit.Suppress(nil, ds, ran); len(fs) != 0 {
		t.Errorf("directive for a rule that did not run reported: %+v", fs)
	}
	if fs := audit.Suppress(nil, ds, func(string) bool { return true }); len(fs) != 1 || fs[0].Rule != "unused-ignore" {
		t.Errorf("stale directive not reported: %+v", fs)
	}
}
