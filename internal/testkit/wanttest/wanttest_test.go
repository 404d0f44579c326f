package wanttest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
)

// recorder is a T that keeps what a check reports instead of failing.
type recorder struct{ errors []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

const fixture = `CREATE TABLE t (a bigint NOT NULL, b text);
CREATE UNIQUE INDEX t_ab ON t (a, b);  -- want: nullable-key/warning "b may be NULL"
CREATE UNIQUE INDEX t_b ON t (b); -- want: optional-unique "unique when present" nullable-key "\"b\""
`

func finding(rule string, line int, sev audit.Severity, msg string) audit.Finding {
	return audit.Finding{Rule: rule, Severity: sev, Message: msg, Object: "public.t.x",
		Pos: catalog.Pos{File: "f.sql", Line: line, Col: 1}}
}

// met is what the fixture wants, exactly.
func met() []audit.Finding {
	return []audit.Finding{
		finding("nullable-key", 2, audit.Warning, "t.t_ab (a, b): b may be NULL"),
		finding("optional-unique", 3, audit.Info, "t.t_b (b): b may be NULL; unique when present"),
		finding("nullable-key", 3, audit.Warning, `index on "b"`),
	}
}

func parse(t *testing.T) []Want {
	t.Helper()
	wants, err := Parse("f.sql", fixture)
	if err != nil {
		t.Fatal(err)
	}
	return wants
}

func TestParse(t *testing.T) {
	wants := parse(t)
	var got []string
	for _, w := range wants {
		got = append(got, fmt.Sprintf("%d %s/%s %s", w.Line, w.Rule, w.Severity, w.Message))
	}
	want := []string{`2 nullable-key/warning b may be NULL`, `3 optional-unique/ unique when present`, `3 nullable-key/ "b"`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parsed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, src := range []string{"add_index :t, :a # want: nullable-key \"x\"", "@@unique([a]) // want: nullable-key \"x\""} {
		if ws, err := Parse("s", src); err != nil || len(ws) != 1 {
			t.Errorf("%q: %v, %v; want one want", src, ws, err)
		}
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	for src, msg := range map[string]string{
		"SELECT 1;\n-- want: nullable-key missing-quotes": `f.sql:2: malformed want comment`,
		"-- want: nullable-key \"(\"":                     `f.sql:1: bad regexp`,
		"\n\n-- want: no-such-rule \"x\"":                 `f.sql:3: unknown rule "no-such-rule"`,
	} {
		_, err := Parse("f.sql", src)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: error %v, want one containing %q", src, err, msg)
		}
	}
}

// A want may name the finding's first fix: a finding whose fixes start
// otherwise, or that has none, fails it.
func TestFirstFix(t *testing.T) {
	wants, err := Parse("f.sql", "\n-- want: nullable-key \"b may be NULL\" fix \"^make b NOT NULL$\"")
	if err != nil || len(wants) != 1 || wants[0].FirstFix == nil {
		t.Fatalf("%v, %v: want one want with a first fix", wants, err)
	}
	f := finding("nullable-key", 2, audit.Warning, "b may be NULL")
	for _, tc := range []struct {
		fixes []audit.Fix
		error string
	}{
		{[]audit.Fix{{Title: "make b NOT NULL"}, {Title: "split"}}, ""},
		{[]audit.Fix{{Title: "split"}, {Title: "make b NOT NULL"}}, `f.sql:2: nullable-key's first fix is "split", want one matching "^make b NOT NULL$"`},
		{nil, `f.sql:2: nullable-key's first fix is "none"`},
	} {
		var r recorder
		f.Fixes = tc.fixes
		Check(&r, "f.sql", wants, []audit.Finding{f}, Options{})
		if got := strings.Join(r.errors, "\n"); (tc.error == "") != (got == "") || !strings.Contains(got, tc.error) {
			t.Errorf("fixes %v: errors %q, want %q", tc.fixes, got, tc.error)
		}
	}
}

func TestCheckPassesWhenEveryWantIsMet(t *testing.T) {
	var r recorder
	if n := Check(&r, "f.sql", parse(t), met(), Options{}); n != 3 || len(r.errors) != 0 {
		t.Errorf("met %d of 3, errors %q", n, r.errors)
	}
}

// The harness must be able to fail: each of these is one mistake a rule
// could make, and each must be reported.
func TestCheckFails(t *testing.T) {
	cases := map[string]struct {
		findings func([]audit.Finding) []audit.Finding
		error    string
	}{
		"missing finding": {func(fs []audit.Finding) []audit.Finding { return fs[1:] },
			`f.sql:2: no nullable-key finding matching "b may be NULL"`},
		"unexpected finding": {func(fs []audit.Finding) []audit.Finding {
			return append(fs, finding("unique-dropped", 1, audit.Warning, "t_x is dropped"))
		}, `f.sql:1:1: unexpected unique-dropped finding: t_x is dropped`},
		"wrong line": {func(fs []audit.Finding) []audit.Finding { fs[0].Pos.Line = 1; return fs },
			`f.sql:2: no nullable-key finding matching`},
		"wrong file": {func(fs []audit.Finding) []audit.Finding { fs[0].Pos.File = "g.sql"; return fs },
			`f.sql:2: no nullable-key finding matching`},
		"wrong message": {func(fs []audit.Finding) []audit.Finding { fs[1].Message = "something else"; return fs },
			`f.sql:3: no optional-unique finding matching "unique when present" (at this line: ["something else"])`},
		"wrong severity": {func(fs []audit.Finding) []audit.Finding { fs[0].Severity = audit.Error; return fs },
			`f.sql:2: nullable-key is error, want warning`},
		"one finding for two wants": {func(fs []audit.Finding) []audit.Finding { return fs[:2] },
			`f.sql:3: no nullable-key finding matching "\"b\""`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var r recorder
			Check(&r, "f.sql", parse(t), c.findings(met()), Options{})
			if len(r.errors) == 0 {
				t.Fatalf("passed; want %q", c.error)
			}
			if !strings.Contains(strings.Join(r.errors, "\n"), c.error) {
				t.Errorf("errors %q, want one containing %q", r.errors, c.error)
			}
		})
	}
}

func TestCheckOptions(t *testing.T) {
	// A live catalog has no positions: AnyLine matches on rule and message.
	live := met()
	for i := range live {
		live[i].Pos = catalog.Pos{}
	}
	var r recorder
	if n := Check(&r, "f.sql", parse(t), live, Options{AnyLine: true}); n != 3 || len(r.errors) != 0 {
		t.Errorf("AnyLine: met %d of 3, errors %q", n, r.errors)
	}
	r = recorder{}
	Check(&r, "f.sql", parse(t), append(live, finding("unique-dropped", 0, audit.Warning, "x")), Options{AnyLine: true})
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "unexpected unique-dropped") {
		t.Errorf("AnyLine with an extra finding: errors %q", r.errors)
	}

	// Rules narrows both sides: wants and findings of other rules are not
	// looked at.
	r = recorder{}
	only := func(id string) bool { return id == "optional-unique" }
	extra := append(met()[1:2], finding("unique-dropped", 1, audit.Warning, "x"))
	if n := Check(&r, "f.sql", parse(t), extra, Options{Rules: only}); n != 1 || len(r.errors) != 0 {
		t.Errorf("Rules: met %d of 1, errors %q", n, r.errors)
	}

	// A suppressed finding is neither a match nor unexpected.
	r = recorder{}
	fs := met()
	fs[0].Suppressed = &audit.Suppression{Kind: "inline"}
	Check(&r, "f.sql", parse(t), fs, Options{})
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "f.sql:2: no nullable-key finding") {
		t.Errorf("suppressed finding: errors %q", r.errors)
	}
}
