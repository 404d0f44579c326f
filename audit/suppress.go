package audit

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// Directive kinds, as Suppression.Kind records them.
const (
	SuppressInline = "inline" // -- idemcheck:ignore RULE reason, for the next statement
	SuppressFile   = "file"   // -- idemcheck:ignore-file RULE reason, for the whole file
	SuppressConfig = "config" // an ignore: entry of .idemcheck.yaml, for an object
)

// Directive is one request to silence a rule: a comment in a migration or an
// entry of the configuration file.
type Directive struct {
	Kind   string
	Rule   string
	Reason string
	// Object is the schema-qualified object a config entry names.
	Object string
	// Pos is where the directive is written.
	Pos catalog.Pos
	// Start and End bound the statement an inline directive covers (End is
	// the position of its last character).
	Start, End catalog.Pos
	// Problem says why the directive is malformed ("no reason given"); a
	// malformed directive suppresses nothing and is reported.
	Problem string
}

// Span is the extent of one statement in a file.
type Span struct {
	Start, End catalog.Pos
}

// SourceComment is a comment as the caller read it: the text after "--" or
// inside "/* */", and where it starts.
type SourceComment struct {
	Text string
	Pos  catalog.Pos
}

const (
	directivePrefix = "idemcheck:"
	ignoreWord      = "ignore"
	ignoreFileWord  = "ignore-file"
)

// FileDirectives reads the directives among one file's comments. An inline
// directive covers the first statement that starts after it; one with no
// statement after it covers nothing and will be reported as unused.
// statements must be in file order.
func FileDirectives(comments []SourceComment, statements []Span) []Directive {
	var out []Directive
	for _, c := range comments {
		d, ok := parseDirective(c)
		if !ok {
			continue
		}
		if d.Kind == SuppressInline {
			for _, st := range statements {
				if before(d.Pos, st.Start) {
					d.Start, d.End = st.Start, st.End
					break
				}
			}
		}
		out = append(out, d)
	}
	return out
}

// parseDirective reads "idemcheck:ignore RULE reason" or
// "idemcheck:ignore-file RULE reason" from a comment; ok is false for any
// other comment.
func parseDirective(c SourceComment) (Directive, bool) {
	text := strings.TrimSpace(c.Text)
	rest, found := strings.CutPrefix(text, directivePrefix)
	if !found {
		return Directive{}, false
	}
	fields := strings.Fields(rest)
	d := Directive{Pos: c.Pos}
	if len(fields) == 0 {
		d.Kind, d.Problem = SuppressInline, "the directive names no rule"
		return d, true
	}
	switch fields[0] {
	case ignoreWord:
		d.Kind = SuppressInline
	case ignoreFileWord:
		d.Kind = SuppressFile
	default:
		d.Kind, d.Problem = SuppressInline, fmt.Sprintf("unknown directive idemcheck:%s (want idemcheck:ignore or idemcheck:ignore-file)", fields[0])
		return d, true
	}
	switch {
	case len(fields) < 2:
		d.Problem = "the directive names no rule: write idemcheck:" + fields[0] + " RULE reason"
	case Lookup(fields[1]) == nil:
		d.Rule = fields[1]
		d.Problem = fmt.Sprintf("unknown rule %q%s", fields[1], SuggestRule(fields[1]))
	case len(fields) < 3:
		d.Rule = fields[1]
		d.Problem = "a reason is required: write idemcheck:" + fields[0] + " " + fields[1] + " why this is intended"
	default:
		d.Rule = fields[1]
		d.Reason = strings.Join(fields[2:], " ")
	}
	return d, true
}

// Suppress marks the findings the directives cover and appends an
// unused-ignore finding for every directive that covered none, or is
// malformed. ran says whether a rule was run at all: a directive for a rule
// that did not run cannot be judged, so it is never reported as unused, and
// unused-ignore findings appear only when ran("unused-ignore"). The result
// is sorted.
func Suppress(findings []Finding, directives []Directive, ran func(rule string) bool) []Finding {
	used := make([]bool, len(directives))
	for i := range findings {
		f := &findings[i]
		for j, d := range directives {
			if d.Problem != "" || !covers(d, *f) {
				continue
			}
			used[j] = true
			if f.Suppressed == nil {
				f.Suppressed = &Suppression{Kind: d.Kind, Reason: d.Reason, Pos: d.Pos}
			}
		}
	}
	if ran(UnusedIgnore.ID) {
		for j, d := range directives {
			if used[j] || (d.Problem == "" && !ran(d.Rule)) {
				continue
			}
			findings = append(findings, unusedFinding(d))
		}
	}
	SortFindings(findings)
	return findings
}

// covers reports whether d silences f. An inline directive covers findings
// placed inside its statement, and also findings whose related position is
// there (the ALTER that dropped NOT NULL from a key column).
func covers(d Directive, f Finding) bool {
	if d.Rule != f.Rule {
		return false
	}
	switch d.Kind {
	case SuppressConfig:
		return d.Object == f.Object
	case SuppressFile:
		return f.Pos.File == d.Pos.File || relatedIn(f, func(p catalog.Pos) bool { return p.File == d.Pos.File })
	}
	if d.Start.IsZero() {
		return false
	}
	inside := func(p catalog.Pos) bool {
		return p.File == d.Start.File && !before(p, d.Start) && !before(d.End, p)
	}
	return inside(f.Pos) || relatedIn(f, inside)
}

func relatedIn(f Finding, match func(catalog.Pos) bool) bool {
	for _, r := range f.Related {
		if match(r.Pos) {
			return true
		}
	}
	return false
}

// before reports whether a comes strictly before b in the same file.
func before(a, b catalog.Pos) bool {
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

func unusedFinding(d Directive) Finding {
	what := "idemcheck:" + ignoreWord
	switch d.Kind {
	case SuppressFile:
		what = "idemcheck:" + ignoreFileWord
	case SuppressConfig:
		what = "config ignore entry for " + d.Object
	}
	msg := fmt.Sprintf("%s %s suppresses nothing: no %s finding here; remove it or move it to the statement it means", what, d.Rule, d.Rule)
	switch {
	case d.Problem != "":
		msg = fmt.Sprintf("%s is malformed and suppresses nothing: %s", what, d.Problem)
	case d.Kind == SuppressInline && d.Start.IsZero():
		msg = fmt.Sprintf("%s %s is followed by no statement, so it suppresses nothing", what, d.Rule)
	case d.Kind == SuppressConfig:
		msg = fmt.Sprintf("%s (%s) suppresses nothing: no %s finding on that object", what, d.Rule, d.Rule)
	}
	object := d.Object
	if object == "" {
		object = fmt.Sprintf("%s %s", what, d.Rule)
	}
	return Finding{Rule: UnusedIgnore.ID, Severity: UnusedIgnore.Severity, Object: object, Message: msg, Pos: d.Pos}
}
