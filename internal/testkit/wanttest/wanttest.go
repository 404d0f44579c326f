// Package wanttest is the harness of the rule fixtures: files whose
// "want:" comments say which findings a run must report, in the manner of
// x/tools' analysistest. audit's fixture test, inspect's live test and the
// framework schema tests all read their fixtures with it, so the comment
// syntax and the matching rules exist once.
//
// A want comment ends a line:
//
//	CREATE UNIQUE INDEX t_ab ON t (a, b);  -- want: nullable-key "b may be NULL"
//
// It holds one or more items, each a rule id, an optional severity
// (nullable-key/error) and a double-quoted regexp the finding's message
// must match (\" stands for a quote), optionally followed by fix and a
// second regexp the title of the finding's first fix must match (what
// --fix-sql writes). The comment marker is "--" (SQL),
// "#" (Ruby) or "//" (Prisma). Each want is paired with one finding of its
// rule at its line; a want without its finding and a finding nobody wanted
// both fail the test.
package wanttest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
)

// Want is one expected finding.
type Want struct {
	Rule string
	// Severity is "error", "warning" or "info", or "" when the comment
	// names none (any severity then matches).
	Severity string
	// Line is the 1-based line of the comment.
	Line int
	// Message matches the finding's message.
	Message *regexp.Regexp
	// FirstFix, when set, matches the title of the finding's first fix.
	FirstFix *regexp.Regexp
}

var (
	wantComment = regexp.MustCompile(`(?:--|#|//) want:(.*)$`)
	wantItem    = regexp.MustCompile(`^\s*([a-z0-9-]+)(?:/(error|warning|info))?\s+"((?:[^"\\]|\\.)*)"(?:\s+fix\s+"((?:[^"\\]|\\.)*)")?`)
)

// Parse reads every want comment of src, the text of the file at path. A
// malformed comment, a bad regexp or an unknown rule id is an error naming
// the file and line.
func Parse(path, src string) ([]Want, error) {
	var out []Want
	for i, line := range strings.Split(src, "\n") {
		m := wantComment.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rest := m[1]
		for strings.TrimSpace(rest) != "" {
			item := wantItem.FindStringSubmatch(rest)
			if item == nil {
				return nil, fmt.Errorf("%s:%d: malformed want comment: %q", path, i+1, rest)
			}
			re, err := regexp.Compile(strings.ReplaceAll(item[3], `\"`, `"`))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: bad regexp: %v", path, i+1, err)
			}
			if audit.Lookup(item[1]) == nil {
				return nil, fmt.Errorf("%s:%d: unknown rule %q", path, i+1, item[1])
			}
			w := Want{Rule: item[1], Severity: item[2], Line: i + 1, Message: re}
			if item[4] != "" {
				if w.FirstFix, err = regexp.Compile(strings.ReplaceAll(item[4], `\"`, `"`)); err != nil {
					return nil, fmt.Errorf("%s:%d: bad fix regexp: %v", path, i+1, err)
				}
			}
			out = append(out, w)
			rest = rest[len(item[0]):]
		}
	}
	return out, nil
}

// T is the part of *testing.T that Check uses, so that the harness can be
// tested with a recorder.
type T interface {
	Helper()
	Errorf(format string, args ...any)
}

// Options adjust what Check compares.
type Options struct {
	// AnyLine pairs wants and findings by rule and message only: a catalog
	// read from a live server has no positions.
	AnyLine bool
	// Rules, when not nil, limits the check to the wants and findings of
	// the rules it accepts (a fixture read by a run of some rules only).
	Rules func(id string) bool
}

// Check pairs every want of the file at path with one finding of its rule,
// at its line (unless AnyLine), whose message the want's regexp matches and
// whose severity is the one the want names, and reports on t every want
// without its finding and every finding nobody wanted. Suppressed findings
// are not reported: an ignore directive in a fixture silences them. Check
// returns how many wants were met.
func Check(t T, path string, wants []Want, findings []audit.Finding, opts Options) int {
	t.Helper()
	in := func(id string) bool { return opts.Rules == nil || opts.Rules(id) }
	used := make([]bool, len(findings))
	met := 0
	for _, w := range wants {
		if !in(w.Rule) {
			continue
		}
		found := false
		var near []string
		for i, f := range findings {
			if used[i] || f.Suppressed != nil || f.Rule != w.Rule {
				continue
			}
			if !opts.AnyLine && (f.Pos.File != path || f.Pos.Line != w.Line) {
				continue
			}
			if w.Message.MatchString(f.Message) {
				used[i], found = true, true
				met++
				if w.Severity != "" && f.Severity.String() != w.Severity {
					t.Errorf("%s:%d: %s is %s, want %s", path, w.Line, w.Rule, f.Severity, w.Severity)
				}
				if w.FirstFix != nil && (len(f.Fixes) == 0 || !w.FirstFix.MatchString(f.Fixes[0].Title)) {
					first := "none"
					if len(f.Fixes) > 0 {
						first = f.Fixes[0].Title
					}
					t.Errorf("%s:%d: %s's first fix is %q, want one matching %q", path, w.Line, w.Rule, first, w.FirstFix)
				}
				break
			}
			near = append(near, f.Message)
		}
		if !found {
			where := "at this line"
			if opts.AnyLine {
				where = "of this rule"
			}
			t.Errorf("%s:%d: no %s finding matching %q (%s: %q)", path, w.Line, w.Rule, w.Message, where, near)
		}
	}
	for i, f := range findings {
		if used[i] || f.Suppressed != nil || !in(f.Rule) {
			continue
		}
		at := f.Pos.String()
		if f.Pos.File == "" {
			at = path + ": " + f.Object
		}
		t.Errorf("%s: unexpected %s finding: %s", at, f.Rule, f.Message)
	}
	return met
}
