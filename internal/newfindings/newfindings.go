// Package newfindings decides which findings a run reports when only what is
// new matters: those with a location in a file a change touched
// (--new-from-rev) and those a baseline does not list (--baseline). lint and
// inspect both run their findings through Apply, so a finding is hidden the
// same way whichever command found it, and a baseline written by one serves
// the other (the fingerprints have no positions).
//
// It runs after the rules and the ignore directives. It asks git which files
// changed and reads and writes baseline files; it never prints and never
// exits.
package newfindings

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/report"
)

// Options say what a run hides.
type Options struct {
	// Changes, when set, keeps only the findings with a location (the
	// primary one or a related one) in a changed file.
	Changes *Changes
	// Baseline, when set, marks the findings it lists as suppressed.
	Baseline *Baseline
	// Ran are the ids of the rules this run ran: a baseline entry of a rule
	// that did not run is not reported as stale.
	Ran []string
}

// Result is what Apply kept and what it has to say.
type Result struct {
	// Findings are the findings to report, in the order given. Those the
	// baseline lists are kept, marked suppressed, as ignore directives
	// leave them: text output hides them, JSON and SARIF mark them.
	Findings []audit.Finding
	// NotNew counts the findings left out because none of their locations
	// is in a changed file.
	NotNew int
	// Notes say which baseline entries matched nothing and which findings
	// the baseline could not judge.
	Notes []string
}

// Apply filters findings by opts.
func Apply(findings []audit.Finding, opts Options) Result {
	var res Result
	marked := markBaseline(findings, opts, &res)
	for _, f := range marked {
		if opts.Changes != nil && !touches(f, opts.Changes) {
			res.NotNew++
			continue
		}
		res.Findings = append(res.Findings, f)
	}
	return res
}

// touches reports whether any of f's locations is in a changed file. The
// related ones count: a change that opens a hole in an old index shows up
// at the index even when a rule placed the finding elsewhere.
func touches(f audit.Finding, c *Changes) bool {
	if f.Pos.File != "" && c.Contains(f.Pos.File) {
		return true
	}
	for _, r := range f.Related {
		if r.Pos.File != "" && c.Contains(r.Pos.File) {
			return true
		}
	}
	return false
}

// markBaseline returns a copy of findings with those the baseline lists
// marked suppressed. An entry hides one finding: a baseline that lists a
// fingerprint twice hides two.
func markBaseline(findings []audit.Finding, opts Options, res *Result) []audit.Finding {
	out := append([]audit.Finding(nil), findings...)
	b := opts.Baseline
	if b == nil {
		return out
	}
	left := map[string]int{}
	for _, e := range b.File.Findings {
		left[e.Fingerprint]++
	}
	unjudged := map[string]int{}
	for i := range out {
		f := &out[i]
		if f.Suppressed != nil {
			continue
		}
		if fp := f.Fingerprint(); left[fp] > 0 {
			left[fp]--
			f.Suppressed = &audit.Suppression{Kind: report.SuppressBaseline, Reason: "listed in the baseline " + b.Path}
			continue
		}
		if !b.couldRun(f.Rule) {
			// inspect cannot run the rules that read migration history, so
			// a baseline it wrote cannot say whether such a finding is old.
			unjudged[f.Rule]++
			f.Suppressed = &audit.Suppression{Kind: report.SuppressBaseline,
				Reason: fmt.Sprintf("not judged: the baseline %s was written by %s, which does not run %s", b.Path, b.File.Command, f.Rule)}
		}
	}
	if len(unjudged) > 0 {
		res.Notes = append(res.Notes, unjudgedNote(b, unjudged))
	}
	ran := map[string]bool{}
	for _, id := range opts.Ran {
		ran[id] = true
	}
	for _, e := range b.File.Findings {
		if left[e.Fingerprint] == 0 || !ran[e.Rule] {
			continue
		}
		left[e.Fingerprint]--
		res.Notes = append(res.Notes, fmt.Sprintf("baseline %s: %s %s matches no finding any more (fixed or renamed): write the baseline again to drop it",
			b.Path, e.Rule, entryName(e)))
	}
	return out
}

func unjudgedNote(b *Baseline, counts map[string]int) string {
	rules := make([]string, 0, len(counts))
	n := 0
	for r, c := range counts {
		rules = append(rules, r)
		n += c
	}
	sort.Strings(rules)
	noun := "findings"
	if n == 1 {
		noun = "finding"
	}
	return fmt.Sprintf("baseline %s: %d %s of %s not shown: the baseline was written by %s, which does not run those rules; "+
		"--new-from-rev shows the ones a change adds, and a baseline written by lint lists them",
		b.Path, n, noun, strings.Join(rules, ", "), b.File.Command)
}

// entryName is the object and key parts of an entry, as messages name them.
func entryName(e baselineEntry) string {
	name := e.Object
	if len(e.Columns) > 0 {
		name += " (" + strings.Join(e.Columns, ", ") + ")"
	}
	return name
}

// RulesRan are the ids of the rules that run on a catalog of this kind:
// the selected ones, less those that need the other kind.
func RulesRan(rules []*audit.Rule, live bool) []string {
	var out []string
	for _, r := range rules {
		if (r.Needs == audit.Migrations && live) || (r.Needs == audit.Live && !live) {
			continue
		}
		out = append(out, r.ID)
	}
	return out
}
