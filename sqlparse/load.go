package sqlparse

import (
	"io"
	"sort"
)

// LoadOptions tunes Load.
type LoadOptions struct {
	Layout Layout
	Stdin  io.Reader
	// Apply is called for every statement in migration order (the
	// replayer's Apply); nil only splits.
	Apply func(Statement) []Diagnostic
}

// LoadResult is everything Load read.
type LoadResult struct {
	Trees       []Tree
	Files       int
	Statements  int
	Diagnostics []Diagnostic         // discovery, split and Apply diagnostics, in input order
	Comments    map[string][]Comment // every comment, per file display path
}

// Load discovers the trees named by paths, reads the up part of every file
// in order, splits it and hands each statement to Apply. One bad path or
// file never loses the results of the others.
func Load(paths []string, opts LoadOptions) *LoadResult {
	res := &LoadResult{Comments: map[string][]Comment{}}
	dopts := DiscoverOptions{Layout: opts.Layout, Stdin: opts.Stdin}
	for _, p := range paths {
		trees, diags := discoverPath(p, dopts)
		res.Diagnostics = append(res.Diagnostics, diags...)
		for _, t := range trees {
			res.Trees = append(res.Trees, t)
			for _, f := range t.Files {
				res.loadFile(f, opts.Apply)
			}
		}
	}
	return res
}

// loadFile reads, splits and applies one file.
func (res *LoadResult) loadFile(f File, apply func(Statement) []Diagnostic) {
	res.Files++
	in, err := ReadUp(f)
	if err != nil {
		res.Diagnostics = append(res.Diagnostics, Diagnostic{Level: Error, Message: err.Error()})
		return
	}
	split := Split(in)
	res.Comments[f.Path] = split.Comments
	res.Statements += len(split.Statements)
	notes := split.Diagnostics
	sort.SliceStable(notes, func(i, j int) bool { return diagBefore(notes[i], notes[j]) })
	for _, st := range split.Statements {
		for len(notes) > 0 && (notes[0].Pos.Line < st.Pos.Line ||
			notes[0].Pos.Line == st.Pos.Line && notes[0].Pos.Col < st.Pos.Col) {
			res.Diagnostics = append(res.Diagnostics, notes[0])
			notes = notes[1:]
		}
		if apply != nil {
			res.Diagnostics = append(res.Diagnostics, apply(st)...)
		}
	}
	res.Diagnostics = append(res.Diagnostics, notes...)
}

// diagBefore orders diagnostics of one file by position.
func diagBefore(a, b Diagnostic) bool {
	if a.Pos.Line != b.Pos.Line {
		return a.Pos.Line < b.Pos.Line
	}
	return a.Pos.Col < b.Pos.Col
}
