package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/newfindings"
	"github.com/idemcheck/idemcheck/report"
)

// newFindingsFlags are the flags that narrow a report to what is new:
// --new-from-rev (lint only: a live database has no files) and the
// baseline pair, which lint and inspect share, fingerprints and all.
type newFindingsFlags struct {
	NewFromRev    string
	Baseline      string
	WriteBaseline string
}

func (f *newFindingsFlags) addTo(c *cobra.Command, withRev bool) {
	fl := c.Flags()
	if withRev {
		fl.StringVar(&f.NewFromRev, "new-from-rev", "", "report only findings with a location in a file changed since the merge base of REV and HEAD, staged, unstaged and untracked changes included (the whole tree is still replayed; empty: report all)")
	}
	fl.StringVar(&f.Baseline, "baseline", "", "hide the findings listed in this file (written by --write-baseline of lint or inspect), and note entries that no longer match")
	fl.StringVar(&f.WriteBaseline, "write-baseline", "", "record the findings in this file as accepted, and exit 0 unless the input could not be read")
}

// newFindingsFilter is the flags checked and read: the baseline parsed and
// the changed files asked of git, before the run does its work, so that a
// bad flag costs nothing.
type newFindingsFilter struct {
	flags    newFindingsFlags
	baseline *newfindings.Baseline
	changes  *newfindings.Changes
}

func (f *newFindingsFlags) prepare(ctx context.Context) (*newFindingsFilter, error) {
	nf := &newFindingsFilter{flags: *f}
	if f.Baseline != "" {
		b, err := newfindings.ReadBaseline(f.Baseline)
		if err != nil {
			return nil, usageError("%v", err)
		}
		nf.baseline = b
	}
	if f.NewFromRev != "" {
		if ctx == nil {
			ctx = context.Background()
		}
		c, err := newfindings.ChangedSince(ctx, "", f.NewFromRev)
		if err != nil {
			return nil, usageError("%v", err)
		}
		nf.changes = c
	}
	return nf, nil
}

// apply writes the baseline when asked, then hides what is not new. The
// document gets the findings to report, the count left out, and notes on
// the baseline (entries that match nothing, findings it cannot judge).
func (nf *newFindingsFilter) apply(command string, rules []*audit.Rule, live bool, doc *report.Document, s *Streams) error {
	if nf == nil {
		return nil
	}
	ran := newfindings.RulesRan(rules, live)
	if path := nf.flags.WriteBaseline; path != "" {
		n, err := newfindings.WriteBaseline(path, command, ran, doc.Findings)
		if err != nil {
			return usageError("%v", err)
		}
		fmt.Fprintf(s.Err, "idemcheck: wrote %s to the baseline %s\n", countNoun(n, "finding"), path)
	}
	res := newfindings.Apply(doc.Findings, newfindings.Options{Changes: nf.changes, Baseline: nf.baseline, Ran: ran})
	doc.Findings = res.Findings
	doc.Summary.Unchanged = res.NotNew
	for _, note := range res.Notes {
		doc.Diagnostics = append(doc.Diagnostics, report.Diagnostic{Level: report.LevelNote,
			Pos: catalog.Pos{File: nf.flags.Baseline}, Message: note})
	}
	return nil
}

// accepted reports whether this run wrote a baseline: its findings are then
// accepted, and do not fail the run.
func (nf *newFindingsFilter) accepted() bool { return nf != nil && nf.flags.WriteBaseline != "" }

// describe is what -v says about the filter on stderr.
func (nf *newFindingsFilter) describe(s *Streams) {
	if nf == nil || nf.changes == nil {
		return
	}
	c := nf.changes
	fmt.Fprintf(s.Err, "--new-from-rev %s: merge base %s, %s changed in %s (committed, staged, unstaged or untracked)\n",
		c.Rev, shortCommit(c.Base), countNoun(c.Len(), "file"), c.Root)
}

func shortCommit(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
