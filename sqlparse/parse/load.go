package parse

import (
	"io"

	"github.com/idemcheck/idemcheck/sqlparse/layout"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// LoadOptions tunes Load.
type LoadOptions struct {
	Layout layout.Layout
	Stdin  io.Reader
	// Apply is called for every statement in migration order, after its
	// parse phase (the replayer's ApplyParsed); nil only splits.
	Apply func(*Parsed) []scan.Diagnostic
	// Workers is the number of goroutines parsing ahead of Apply; zero
	// means GOMAXPROCS.
	Workers int
	// FullParse hands every statement to the parser, including those the
	// prefilter would skip. It exists to compare the two.
	FullParse bool
	// Include, when set, chooses the files to read by display path; the
	// others are left out of the trees before anything reads them.
	Include func(path string) bool
	// Vars are the values for template placeholders and psql variables;
	// nil means none were given (placeholders get stand-ins).
	Vars scan.Vars
}

// LoadResult is everything Load read.
type LoadResult struct {
	Trees      []layout.Tree
	Files      int
	Statements int
	// SkippedFiles counts the files the layouts left out (down scripts,
	// other databases' files ...); each has a note.
	SkippedFiles int
	// SkippedStatements counts statements not replayed because they sit in
	// a template control action ({{ if }}, {{ range }}) with no values.
	SkippedStatements int
	Diagnostics       []scan.Diagnostic         // discovery, split and Apply diagnostics, in input order
	Comments          map[string][]scan.Comment // every comment, per file display path
}

// Load discovers the trees named by paths, reads the up part of every file
// in order, splits it and hands each statement to Apply. Files are read,
// split and parsed on other goroutines a bounded distance ahead of Apply,
// which sees every statement in migration order; a file's text and parse
// trees are dropped once its statements are applied. One bad path or file
// never loses the results of the others.
func Load(paths []string, opts LoadOptions) *LoadResult {
	res := &LoadResult{Comments: map[string][]scan.Comment{}}
	p := newPipeline(paths, opts)
	defer p.stop()
	for it := range p.items {
		<-it.done
		res.take(it, opts.Apply)
		p.applied(it)
	}
	return res
}

// take records one item of the pipeline: discovery results, or a run of
// one file's statements, applied in order, with the split notes placed
// among the apply diagnostics by position.
func (res *LoadResult) take(it *loadItem, apply func(*Parsed) []scan.Diagnostic) {
	res.Diagnostics = append(res.Diagnostics, it.diags...)
	res.SkippedFiles += it.skippedFiles
	res.SkippedStatements += it.skippedStmts
	if it.tree != nil {
		res.Trees = append(res.Trees, *it.tree)
	}
	f := it.file
	if f == nil {
		return
	}
	if it.first {
		res.Files++
		if f.readErr != nil {
			res.Diagnostics = append(res.Diagnostics, scan.Diagnostic{Level: scan.Error, Message: f.readErr.Error()})
			return
		}
		res.Comments[f.path] = it.comments
	} else if len(it.comments) > 0 {
		res.Comments[f.path] = append(res.Comments[f.path], it.comments...)
	}
	res.Statements += len(it.stmts)
	notes := it.notes
	for i, st := range it.stmts {
		for len(notes.list) > 0 && (notes.list[0].Pos.Line < st.Pos.Line ||
			notes.list[0].Pos.Line == st.Pos.Line && notes.list[0].Pos.Col < st.Pos.Col) {
			res.Diagnostics = append(res.Diagnostics, notes.list[0])
			notes.list = notes.list[1:]
		}
		if apply != nil {
			res.Diagnostics = append(res.Diagnostics, apply(it.parsed[i])...)
			it.parsed[i] = nil // let the parse trees go as soon as they are applied
		}
	}
	if it.flush {
		res.Diagnostics = append(res.Diagnostics, notes.list...)
		notes.list = nil
	}
}
