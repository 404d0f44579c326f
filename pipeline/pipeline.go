// Package pipeline is the audit that lint and inspect run, once: the rules
// over a catalog, the framework fixes, the ignore directives, --severity,
// the live data counts, the report document, what is new (a baseline,
// --new-from-rev), then the report itself and the exit threshold. The
// tests run it too, so that a fixture is judged the way lint judges it.
//
// A source of a catalog (lint's replay of migrations, inspect's reader of a
// live server) fills an Input; Run does the rest and returns a Result, which
// writes the report and says whether the run fails. The steps that only
// one source has (Rails and Prisma fixes for lint, data counts for inspect)
// are hooks in Options, so that pipeline imports neither source.
//
// pipeline writes to the writers it is given and to a baseline file when
// asked; it never prints to the terminal and never exits.
package pipeline

import (
	"io"
	"slices"
	"time"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/newfindings"
	"github.com/idemcheck/idemcheck/prove/witness"
	"github.com/idemcheck/idemcheck/report"
)

// Input is what a source read: the catalog, the history replay recorded on
// the way to it, the ignore directives found beside it (comments in
// migrations, the configuration's object ignores), and what the report says
// about the input.
type Input struct {
	Catalog *catalog.Catalog
	// History is what replay recorded (replay.Replayer.History); nil for a
	// live catalog. It goes to the audit as Options.Audit.History.
	History    *catalog.History
	Directives []audit.Directive
	// Inputs, Diagnostics and Summary go into the report document as they
	// are; Run adds the finding counts and the elapsed time.
	Inputs      []report.Input
	Diagnostics []report.Diagnostic
	Summary     report.Summary
	// Account is what became of every schema-like file under lint's
	// paths; nil for inspect.
	Account *report.Account
}

// Options say how to audit.
type Options struct {
	// Rules are the rules to run (--rule, --disable); a directive for a
	// rule not among them is not judged.
	Rules []*audit.Rule
	// Audit is the target version and whether the catalog is live.
	Audit audit.Options
	// Severities re-rank findings by rule id (--severity).
	Severities map[string]audit.Severity
	// MinSeverity is the lowest severity the report prints (--min-severity).
	MinSeverity audit.Severity
	// Amend runs on the findings after the rules and before the
	// directives: lint adds the fixes written in a framework's own
	// language there.
	Amend func(findings []audit.Finding)
	// Enrich runs on the findings after the directives and --severity:
	// inspect --data counts rows there, and may add what that cost to the
	// summary. The diagnostics it returns (a connection lost while
	// counting) go into the report after the input's own.
	Enrich func(findings []audit.Finding, summary *report.Summary) []report.Diagnostic
	// Prove runs the witnesses on a scratch server (--prove), after
	// Enrich, and says what it did for the report; a finding it refutes
	// no longer counts toward the fail threshold. An error it returns is
	// reported as an input error beside the findings.
	Prove func(findings []audit.Finding) (*report.Proving, error)
	// New says what counts as new; the zero value reports every finding.
	New New
	// Version is the tool's version, for the document.
	Version string
	// Start is when the run began; the summary's elapsed time is measured
	// from it when the document is made. Zero leaves Input.Summary.Elapsed.
	Start time.Time
}

// New narrows a report to what is new, and records a baseline.
type New struct {
	// Command names the command in a baseline written ("lint", "inspect").
	Command string
	// Changes, when set, keeps only findings located in a changed file.
	Changes *newfindings.Changes
	// Baseline, when set, marks the findings it lists as suppressed;
	// BaselinePath is the file it was read from, where its notes point.
	Baseline     *newfindings.Baseline
	BaselinePath string
	// WriteBaseline, when set, is the file the findings are recorded in
	// as accepted; the run then does not fail on them.
	WriteBaseline string
}

// Result is a finished audit.
type Result struct {
	// Doc is the report document; Doc.Findings are the findings to report,
	// sorted, with suppressed ones marked.
	Doc *report.Document
	// BaselineWritten counts the findings recorded in New.WriteBaseline;
	// it is meaningful only when one was asked for.
	BaselineWritten int
	// accepted is set when a baseline was written.
	accepted bool
}

// judge runs the rules over cat and judges the findings as lint and
// inspect do: Amend, the directives (only for rules that ran), --severity,
// the witness of every hole, and Enrich. The result is sorted by position, object and rule (audit.Run
// and audit.Suppress each sort what they return; re-ranking and the hooks
// keep the order).
func judge(cat *catalog.Catalog, directives []audit.Directive, opts Options, summary *report.Summary) ([]audit.Finding, []report.Diagnostic) {
	findings := audit.Run(cat, opts.Rules, opts.Audit)
	if opts.Amend != nil {
		opts.Amend(findings)
	}
	findings = audit.Suppress(findings, directives, func(id string) bool { return ran(opts.Rules, id) })
	for i := range findings {
		if s, ok := opts.Severities[findings[i].Rule]; ok {
			findings[i].Severity = s
		}
	}
	witness.Attach(findings, cat)
	var diags []report.Diagnostic
	if opts.Enrich != nil {
		diags = opts.Enrich(findings, summary)
	}
	return findings, diags
}

// Run is the whole audit of one input: the rules and their judgement
// (judge), then the report document, then what is new. The only error is a
// baseline that could not be written. lint and inspect call it, and so do
// the tests that want a fixture judged as lint or inspect would judge it.
func Run(in Input, opts Options) (*Result, error) {
	summary := in.Summary
	if in.History != nil {
		opts.Audit.History = in.History
	}
	findings, enriched := judge(in.Catalog, in.Directives, opts, &summary)
	diags := append(slices.Clip(in.Diagnostics), enriched...)
	var proving *report.Proving
	if opts.Prove != nil {
		var err error
		if proving, err = opts.Prove(findings); err != nil {
			diags = append(append([]report.Diagnostic(nil), diags...), report.Diagnostic{Level: report.LevelError, Message: err.Error()})
		}
	}
	if !opts.Start.IsZero() {
		summary.Elapsed = time.Since(opts.Start)
	}
	res := &Result{Doc: &report.Document{
		Tool:        report.ToolName,
		Version:     opts.Version,
		Inputs:      in.Inputs,
		Findings:    findings,
		Diagnostics: diags,
		Summary:     summary,
		MinSeverity: opts.MinSeverity,
		Proving:     proving,
		Account:     in.Account,
	}}
	if err := res.applyNew(opts.New, opts.Rules, opts.Audit.Live); err != nil {
		return nil, err
	}
	return res, nil
}

// applyNew writes the baseline when asked, then hides what is not new. The
// document gets the findings to report, the count left out, and notes on
// the baseline (entries that match nothing, findings it cannot judge).
func (r *Result) applyNew(n New, rules []*audit.Rule, live bool) error {
	doc := r.Doc
	ran := newfindings.RulesRan(rules, live)
	if n.WriteBaseline != "" {
		count, err := newfindings.WriteBaseline(n.WriteBaseline, n.Command, ran, doc.Findings)
		if err != nil {
			return err
		}
		r.BaselineWritten, r.accepted = count, true
	}
	res := newfindings.Apply(doc.Findings, newfindings.Options{Changes: n.Changes, Baseline: n.Baseline, Ran: ran})
	doc.Findings = res.Findings
	doc.Summary.Unchanged = res.NotNew
	for _, note := range res.Notes {
		doc.Diagnostics = append(doc.Diagnostics, report.Diagnostic{Level: report.LevelNote,
			Pos: catalog.Pos{File: n.BaselinePath}, Message: note})
	}
	return nil
}

// Findings are the findings the report holds: sorted, suppressed ones
// marked, those that are not new left out.
func (r *Result) Findings() []audit.Finding { return r.Doc.Findings }

// Write writes the report in the named format.
func (r *Result) Write(w io.Writer, format string, opts report.Options) error {
	return report.Write(w, r.Doc, format, opts)
}

// InputErrors reports whether some input could not be read: the run then
// exits 2 whatever it found.
func (r *Result) InputErrors() bool {
	for _, d := range r.Doc.Diagnostics {
		if d.Level == report.LevelError {
			return true
		}
	}
	return false
}

// Threshold is --fail-on: findings at or above Severity fail the run,
// unless Never is set.
type Threshold struct {
	Severity audit.Severity
	Never    bool
}

// Fails reports whether a finding that is not suppressed reaches t. A run
// that wrote a baseline has accepted its findings and never fails on them,
// and a finding --prove refuted is a false alarm that does not count.
func (r *Result) Fails(t Threshold) bool {
	if t.Never || r.accepted {
		return false
	}
	for _, f := range r.Doc.Findings {
		if f.Suppressed == nil && f.Severity >= t.Severity && !Refuted(f) {
			return true
		}
	}
	return false
}

// Refuted reports whether --prove refuted f: PostgreSQL refused its
// witness, so it is a false alarm.
func Refuted(f audit.Finding) bool { return f.Proof != nil && f.Proof.Verdict == audit.Refuted }

// ran says whether rule id is among rules.
func ran(rules []*audit.Rule, id string) bool {
	for _, r := range rules {
		if r.ID == id {
			return true
		}
	}
	return false
}
