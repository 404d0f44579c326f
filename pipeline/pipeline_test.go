package pipeline_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/newfindings"
	"github.com/idemcheck/idemcheck/pipeline"
	"github.com/idemcheck/idemcheck/report"
	"github.com/idemcheck/idemcheck/sqlparse"
)

// hole is a migration whose unique index lets duplicates through: sub may be
// NULL. ignore, when set, is a comment line put before the index.
func hole(ignore string) string {
	return "CREATE TABLE events (id bigint PRIMARY KEY, org bigint NOT NULL, sub text, tx text NOT NULL);\n" +
		ignore + "CREATE UNIQUE INDEX events_key ON events (org, sub, tx);\n"
}

// input replays src as one migration file, with its ignore directives.
func input(t *testing.T, src string) pipeline.Input {
	t.Helper()
	const path = "0001_events.up.sql"
	split := sqlparse.Split(sqlparse.Input{Path: path, Text: src})
	cat := catalog.New()
	r := sqlparse.NewReplayer(cat)
	var spans []audit.Span
	for _, st := range split.Statements {
		for _, d := range r.Apply(st) {
			if d.Level == sqlparse.Error {
				t.Fatalf("%s", d)
			}
		}
		spans = append(spans, audit.Span{Start: st.Pos, End: st.PosAt(len(st.Text))})
	}
	var comments []audit.SourceComment
	for _, c := range split.Comments {
		comments = append(comments, audit.SourceComment{Text: c.Text, Pos: c.Pos})
	}
	return pipeline.Input{Catalog: cat, History: r.History(), Directives: audit.FileDirectives(comments, spans),
		Summary: report.Summary{Files: 1, Statements: len(split.Statements)}}
}

func run(t *testing.T, in pipeline.Input, opts pipeline.Options) *pipeline.Result {
	t.Helper()
	if opts.Rules == nil {
		opts.Rules = audit.Rules
	}
	if opts.Audit.PGVersion == 0 {
		opts.Audit.PGVersion = 16
	}
	res, err := pipeline.Run(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func rules(fs []audit.Finding) []string {
	var out []string
	for _, f := range fs {
		s := f.Rule + "/" + f.Severity.String()
		if f.Suppressed != nil {
			s += "/suppressed:" + f.Suppressed.Kind
		}
		out = append(out, s)
	}
	return out
}

var warning = pipeline.Threshold{Severity: audit.Warning}

// A hole fails the run at --fail-on warning; --severity re-ranks it below
// the threshold, and the hooks run in order around the directives and the
// re-ranking.
func TestSeverityAndHooks(t *testing.T) {
	res := run(t, input(t, hole("")), pipeline.Options{})
	if got := rules(res.Findings()); len(got) != 1 || !strings.HasPrefix(got[0], "nullable-key/") {
		t.Fatalf("findings %q, want one nullable-key", got)
	}
	if !res.Fails(warning) || res.Fails(pipeline.Threshold{Never: true}) {
		t.Errorf("a hole: Fails(warning) = %v, Fails(none) = %v", res.Fails(warning), res.Fails(pipeline.Threshold{Never: true}))
	}

	var amended, enriched []string
	res = run(t, input(t, hole("")), pipeline.Options{
		Severities: map[string]audit.Severity{"nullable-key": audit.Info},
		Amend: func(fs []audit.Finding) {
			amended = rules(fs)
			fs[0].Notes = append(fs[0].Notes, "amended")
		},
		Enrich: func(fs []audit.Finding, s *report.Summary) []report.Diagnostic {
			enriched = rules(fs)
			s.RoundTrips = 7
			return []report.Diagnostic{{Level: report.LevelError, Message: "lost"}}
		},
	})
	if got := rules(res.Findings()); len(got) != 1 || got[0] != "nullable-key/info" {
		t.Errorf("--severity nullable-key=info: findings %q", got)
	}
	if res.Fails(warning) {
		t.Error("an info finding failed the run at --fail-on warning")
	}
	if len(amended) != 1 || amended[0] == "nullable-key/info" {
		t.Errorf("Amend saw %q, want the finding before re-ranking", amended)
	}
	if len(enriched) != 1 || enriched[0] != "nullable-key/info" {
		t.Errorf("Enrich saw %q, want the finding re-ranked", enriched)
	}
	if !res.InputErrors() {
		t.Error("the error Enrich returned is not in the report")
	}
	if f := res.Findings()[0]; len(f.Notes) == 0 || f.Notes[len(f.Notes)-1] != "amended" {
		t.Errorf("Amend's change is lost: notes %q", f.Notes)
	}
	if res.Doc.Summary.RoundTrips != 7 || res.Doc.Summary.Files != 1 {
		t.Errorf("summary %+v, want Enrich's round trips beside the input's counts", res.Doc.Summary)
	}
}

// An ignore directive suppresses the finding, which then fails nothing; a
// directive for a rule that did not run is not judged, and one that covers
// nothing is reported by unused-ignore.
func TestDirectives(t *testing.T) {
	res := run(t, input(t, hole("-- idemcheck:ignore nullable-key the API deduplicates\n")), pipeline.Options{})
	if got := rules(res.Findings()); len(got) != 1 || !strings.HasSuffix(got[0], "/suppressed:inline") {
		t.Errorf("findings %q, want the hole suppressed", got)
	}
	if res.Fails(warning) {
		t.Error("a suppressed finding failed the run")
	}

	unused := hole("") + "-- idemcheck:ignore-file optional-unique nothing is optional here\n"
	res = run(t, input(t, unused), pipeline.Options{})
	if got := strings.Join(rules(res.Findings()), " "); !strings.Contains(got, "unused-ignore/") {
		t.Errorf("findings %q, want unused-ignore for the directive that covers nothing", got)
	}
	res = run(t, input(t, unused), pipeline.Options{Rules: []*audit.Rule{audit.NullableKey, audit.UnusedIgnore}})
	if got := strings.Join(rules(res.Findings()), " "); strings.Contains(got, "unused-ignore/") {
		t.Errorf("findings %q: a directive for a rule that did not run was judged", got)
	}
}

// A run that writes a baseline accepts its findings; the next run with
// that baseline marks them, and the report leaves them out.
func TestBaseline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "baseline.json")
	res := run(t, input(t, hole("")), pipeline.Options{New: pipeline.New{Command: "lint", WriteBaseline: path}})
	if res.BaselineWritten != 1 || res.Fails(warning) {
		t.Errorf("writing the baseline: %d written, fails %v; want 1 and false", res.BaselineWritten, res.Fails(warning))
	}
	b, err := newfindings.ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	res = run(t, input(t, hole("")), pipeline.Options{New: pipeline.New{Command: "lint", Baseline: b, BaselinePath: path}})
	if got := rules(res.Findings()); len(got) != 1 || !strings.HasSuffix(got[0], "/suppressed:"+report.SuppressBaseline) {
		t.Errorf("findings %q, want the hole marked as in the baseline", got)
	}
	if res.Fails(warning) {
		t.Error("a finding in the baseline failed the run")
	}
	var out bytes.Buffer
	if err := res.Write(&out, "text", report.Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "nullable-key") || !strings.Contains(out.String(), "1 in the baseline") {
		t.Errorf("text report:\n%s", out.String())
	}
	if err := res.Write(&out, "yaml", report.Options{}); err == nil {
		t.Error("an unknown format was written")
	}
}

// An input error makes the run exit 2 whatever it found.
func TestInputErrors(t *testing.T) {
	in := input(t, hole(""))
	if res := run(t, in, pipeline.Options{}); res.InputErrors() {
		t.Error("input errors without any")
	}
	in.Diagnostics = []report.Diagnostic{{Level: report.LevelNote, Message: "skipped"}}
	if res := run(t, in, pipeline.Options{}); res.InputErrors() {
		t.Error("a note counted as an input error")
	}
	in.Diagnostics = append(in.Diagnostics, report.Diagnostic{Level: report.LevelError, Message: "syntax error"})
	if res := run(t, in, pipeline.Options{}); !res.InputErrors() {
		t.Error("an input error went unnoticed")
	}
}
