package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/idemcheck/idemcheck/internal/newfindings"
	"github.com/idemcheck/idemcheck/pipeline"

	"github.com/idemcheck/idemcheck/internal/humanize"
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

// options are what the pipeline needs to hide what is not new, and to
// write the baseline; a nil filter hides nothing.
func (nf *newFindingsFilter) options(command string) pipeline.New {
	if nf == nil {
		return pipeline.New{Command: command}
	}
	return pipeline.New{Command: command, Changes: nf.changes, Baseline: nf.baseline,
		BaselinePath: nf.flags.Baseline, WriteBaseline: nf.flags.WriteBaseline}
}

// reportWritten says on stderr how many findings a run wrote to the
// baseline, when it wrote one.
func (nf *newFindingsFilter) reportWritten(res *pipeline.Result, s *Streams) {
	if nf == nil || nf.flags.WriteBaseline == "" {
		return
	}
	fmt.Fprintf(s.Err, "idemcheck: wrote %s to the baseline %s\n", humanize.Count(res.BaselineWritten, "finding", "findings"), nf.flags.WriteBaseline)
}

// describe is what -v says about the filter on stderr.
func (nf *newFindingsFilter) describe(s *Streams) {
	if nf == nil || nf.changes == nil {
		return
	}
	c := nf.changes
	fmt.Fprintf(s.Err, "--new-from-rev %s: merge base %s, %s changed in %s (committed, staged, unstaged or untracked)\n",
		c.Rev, shortCommit(c.Base), humanize.Count(c.Len(), "file", "files"), c.Root)
}

func shortCommit(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
