package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
)

// measurement is everything measured on one corpus.
type measurement struct {
	Corpus     *corpus
	Commit     string // the local copy's HEAD, or the manifest's when it has no .git
	Lint       *document
	Inspect    *document
	Indexes    []uniqueIndex
	PsqlErrors []string
	// Remarks are the harness's own observations: the local copy is not at
	// the judged commit, psql was given other files than lint replayed, lint
	// has no --var for a templated tree.
	Remarks []string
}

// judged is a finding with its verdict: true, false, debatable, or "" when
// no judgment covers it.
type judged struct {
	Source  string // lint or inspect
	Finding finding
	Where   string // the finding's file relative to the tree
	Verdict string
	Reason  string
}

// judgedIndex is a unique index with a nullable key part, its verdict
// (hole, present, safe, debatable, "" unjudged) and what lint and inspect
// reported on it.
type judgedIndex struct {
	Index         uniqueIndex
	Verdict       string
	Reason        string
	Lint, Inspect []finding // nullable-key and optional-unique findings on it
}

// score is one corpus measured against its judgments.
type score struct {
	M        *measurement
	Findings []judged // lint's findings
	// LintOnly and InspectOnly are the differences between the two, over
	// the rules both can run; InspectOnly findings are judged too.
	LintOnly, InspectOnly []judged
	Indexes               []judgedIndex
	// Unused are judgment rows that matched nothing in this run;
	// Reappeared are historical rows that matched again, and Historical
	// counts the historical rows.
	Unused, Reappeared []*judgment
	Historical         int
	// Unjudged is everything without a verdict: "?" rows of the file
	// (with Pos) and new rows for the rest (without).
	Unjudged []*judgment
}

// comparableRules are the rules both lint and inspect run: only those can
// disagree. History-only rules (unique-dropped, ...) and live-only rules are
// left out, and so is unused-ignore, which is about directives.
func comparableRules() map[string]bool {
	out := map[string]bool{}
	for _, r := range audit.Rules {
		if r.Needs == audit.Either && r.ID != audit.UnusedIgnore.ID {
			out[r.ID] = true
		}
	}
	return out
}

// scoreCorpus judges one corpus's findings and indexes.
func scoreCorpus(m *measurement, jf *judgmentFile, comparable map[string]bool) *score {
	s := &score{M: m}
	var pending []*judgment
	unjudged := func(rule, object, parts, where, context string) {
		pending = append(pending, &judgment{Rule: rule, Object: object, Parts: parts, Where: where, Reason: context})
	}
	judge := func(source string, f finding) judged {
		j := judged{Source: source, Finding: f, Where: m.relative(f)}
		row := jf.finding(f, j.Where)
		if row == nil && (f.Rule == audit.NullableKey.ID || f.Rule == audit.OptionalUnique.ID) {
			if idx := jf.indexByObject(f.Object); idx != nil {
				if idx.Verdict != "?" {
					j.Verdict, j.Reason = derivedVerdict(f.Rule, idx.Verdict), idx.Reason
				}
				return j
			}
			if m.hasIndex(f.Object) {
				return j // the index's own row is asked for below
			}
		}
		switch {
		case row == nil:
			unjudged(f.Rule, f.Object, strings.Join(f.Columns, ", "), whereFor(f.Rule, j.Where), f.Message)
		case row.Verdict == "?":
			pending = append(pending, row)
		default:
			j.Verdict, j.Reason = severityVerdict(row.Verdict, f.Severity), row.Reason
		}
		return j
	}
	for _, f := range m.Lint.Findings {
		s.Findings = append(s.Findings, judge("lint", f))
	}
	if m.Inspect != nil {
		lintOnly, inspectOnly := differences(m.Lint.Findings, m.Inspect.Findings, comparable)
		for _, f := range lintOnly {
			s.LintOnly = append(s.LintOnly, judged{Source: "lint", Finding: f, Where: m.relative(f)})
		}
		for _, f := range inspectOnly {
			s.InspectOnly = append(s.InspectOnly, judge("inspect", f))
		}
	}
	for _, u := range m.Indexes {
		ji := judgedIndex{Index: u, Lint: onIndex(m.Lint, u.Object), Inspect: onIndex(m.Inspect, u.Object)}
		switch row := jf.index(u); {
		case row == nil:
			unjudged(indexRule, u.Object, u.key(), "", indexContext(u))
		case row.Verdict == "?":
			pending = append(pending, row)
		default:
			ji.Verdict, ji.Reason = row.Verdict, row.Reason
		}
		s.Indexes = append(s.Indexes, ji)
	}
	// The same finding from lint and inspect, or repeated, asks once.
	seen := map[string]bool{}
	for _, j := range pending {
		if !seen[j.key()] {
			seen[j.key()] = true
			s.Unjudged = append(s.Unjudged, j)
		}
	}
	s.Unused, s.Reappeared, s.Historical = jf.unused(), jf.reappeared(), jf.historicalCount()
	return s
}

// derivedVerdict is the verdict of a nullable-key or optional-unique
// finding on an index judged hole, present, safe or debatable: a hole must
// be reported as nullable-key, anything else must not be.
func derivedVerdict(rule, index string) string {
	if index == "debatable" {
		return "debatable"
	}
	if (rule == audit.NullableKey.ID) == (index == "hole") {
		return "true"
	}
	return "false"
}

// severityVerdict reads the verdict "info" (the finding is right only as
// info) against the severity it was reported at.
func severityVerdict(verdict, severity string) string {
	if verdict != "info" {
		return verdict
	}
	if severity == "info" {
		return "true"
	}
	return "false"
}

// whereFor keeps the file in the key of rules whose findings sit at a
// statement in the history (a drop can happen more than once); the others
// judge the end state, wherever it was written.
func whereFor(rule, where string) string {
	switch rule {
	case audit.UniqueDropped.ID, audit.NotNullDropped.ID, audit.OnConflictHole.ID:
		return where
	}
	return ""
}

func (m *measurement) hasIndex(object string) bool {
	return slices.ContainsFunc(m.Indexes, func(u uniqueIndex) bool { return u.Object == object })
}

// relative is the finding's file relative to the corpus tree.
func (m *measurement) relative(f finding) string {
	if f.Position == nil {
		return ""
	}
	return m.Corpus.relative(f.Position.File)
}

func indexContext(u uniqueIndex) string {
	s := "nullable: " + strings.Join(u.Nullable, ", ")
	if u.Predicate != "" {
		s += "; WHERE " + u.Predicate
	}
	return s
}

// onIndex lists the nullable-key and optional-unique findings on an index.
func onIndex(doc *document, object string) []finding {
	if doc == nil {
		return nil
	}
	var out []finding
	for _, f := range doc.Findings {
		if f.Object == object && (f.Rule == audit.NullableKey.ID || f.Rule == audit.OptionalUnique.ID) {
			out = append(out, f)
		}
	}
	return out
}

// differences compares lint's and inspect's findings of the comparable
// rules as multisets of (rule, severity, object, columns).
func differences(lint, inspect []finding, comparable map[string]bool) (lintOnly, inspectOnly []finding) {
	key := func(f finding) string {
		return strings.Join([]string{f.Rule, f.Severity, f.Object, strings.Join(f.Columns, ", ")}, "\t")
	}
	count := map[string]int{}
	for _, f := range inspect {
		if comparable[f.Rule] {
			count[key(f)]++
		}
	}
	for _, f := range lint {
		if !comparable[f.Rule] {
			continue
		}
		if count[key(f)] > 0 {
			count[key(f)]--
			continue
		}
		lintOnly = append(lintOnly, f)
	}
	for _, f := range inspect {
		if comparable[f.Rule] && count[key(f)] > 0 {
			count[key(f)]--
			inspectOnly = append(inspectOnly, f)
		}
	}
	return lintOnly, inspectOnly
}

// tally counts verdicts.
type tally struct {
	Findings, True, False, Debatable, Unjudged int
}

func (t *tally) add(verdict string) {
	t.Findings++
	switch verdict {
	case "true":
		t.True++
	case "false":
		t.False++
	case "debatable":
		t.Debatable++
	default:
		t.Unjudged++
	}
}

func (t *tally) plus(o tally) {
	t.Findings += o.Findings
	t.True += o.True
	t.False += o.False
	t.Debatable += o.Debatable
	t.Unjudged += o.Unjudged
}

// precision over the judged findings, debatable counted as false (strict)
// and as true; ok is false when nothing is judged.
func (t tally) precision() (strict, lenient float64, ok bool) {
	judged := t.True + t.False + t.Debatable
	if judged == 0 {
		return 0, 0, false
	}
	return float64(t.True) / float64(judged), float64(t.True+t.Debatable) / float64(judged), true
}

// atWarning says whether a finding counts for precision: warning and above.
func atWarning(f finding) bool { return f.Severity == "error" || f.Severity == "warning" }

// ruleTallies counts lint's findings at warning and above per rule.
func (s *score) ruleTallies() map[string]*tally {
	out := map[string]*tally{}
	for _, j := range s.Findings {
		if !atWarning(j.Finding) {
			continue
		}
		t := out[j.Finding.Rule]
		if t == nil {
			t = &tally{}
			out[j.Finding.Rule] = t
		}
		t.add(j.Verdict)
	}
	return out
}

// recall is how many of the holes judged by hand a source reported as
// nullable-key at warning or above.
type recall struct {
	Holes, Lint, Inspect int
	Present, Safe        int
	Debatable, Unjudged  int
	Missed               []judgedIndex // holes lint did not report
}

func (s *score) recall() recall {
	var r recall
	for _, ji := range s.Indexes {
		switch ji.Verdict {
		case "hole":
			r.Holes++
			lint, inspect := reportsHole(ji.Lint), reportsHole(ji.Inspect)
			if lint {
				r.Lint++
			} else {
				r.Missed = append(r.Missed, ji)
			}
			if inspect {
				r.Inspect++
			}
		case "present":
			r.Present++
		case "safe":
			r.Safe++
		case "debatable":
			r.Debatable++
		default:
			r.Unjudged++
		}
	}
	return r
}

func reportsHole(fs []finding) bool {
	return slices.ContainsFunc(fs, func(f finding) bool { return f.Rule == audit.NullableKey.ID && atWarning(f) })
}

// findingsPerRule counts every finding of a document per rule, any
// severity.
func findingsPerRule(doc *document) map[string]int {
	out := map[string]int{}
	if doc == nil {
		return out
	}
	for _, f := range doc.Findings {
		out[f.Rule]++
	}
	return out
}

func (j judged) String() string {
	where := ""
	if j.Where != "" {
		where = " @ " + j.Where
		if j.Finding.Position != nil {
			where += fmt.Sprintf(":%d", j.Finding.Position.Line)
		}
	}
	return fmt.Sprintf("%s %s %s (%s)%s", j.Finding.Rule, j.Finding.Severity, j.Finding.Object, strings.Join(j.Finding.Columns, ", "), where)
}

// proofs are what --prove made of one corpus's findings.
type proofs struct {
	Witnesses, Proven, JudgedTrue, TrueProven int
	FixRefused, FixAccepted                   int
	Refuted, NotProven                        []judged
	// Differ lists the findings lint and inspect both reported whose
	// verdicts differ.
	Differ []string
}

func (s *score) proofs() proofs {
	var p proofs
	for _, j := range s.Findings {
		pr := j.Finding.Proof
		if j.Verdict == "true" && pr != nil {
			p.JudgedTrue++
		}
		if pr == nil {
			continue
		}
		p.Witnesses++
		switch pr.Verdict {
		case "proven":
			p.Proven++
			if j.Verdict == "true" {
				p.TrueProven++
			}
		case "refuted":
			p.Refuted = append(p.Refuted, j)
		default:
			p.NotProven = append(p.NotProven, j)
		}
		switch pr.Fix {
		case "refused":
			p.FixRefused++
		case "accepted":
			p.FixAccepted++
		}
	}
	if s.M.Inspect == nil {
		return p
	}
	live := map[string]string{}
	for _, f := range s.M.Inspect.Findings {
		if f.Proof != nil {
			live[f.Rule+" "+f.Object] = f.Proof.Verdict + ", fix " + f.Proof.Fix
		}
	}
	for _, j := range s.Findings {
		f := j.Finding
		if f.Proof == nil {
			continue
		}
		got, ok := live[f.Rule+" "+f.Object]
		if want := f.Proof.Verdict + ", fix " + f.Proof.Fix; ok && got != want {
			p.Differ = append(p.Differ, fmt.Sprintf("%s: lint %s, inspect %s", j, want, got))
		}
	}
	return p
}
