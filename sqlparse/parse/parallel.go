package parse

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/sqlparse/layout"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// Parsed is a statement after the parse phase: its parse trees, its parse
// error, or nothing at all when the prefilter found that it cannot change
// the model. A Parsed is never changed after it is made, so it can be handed
// from the goroutine that parsed it to the one that replays it.
type Parsed struct {
	// Statement is the statement that was parsed.
	Statement scan.Statement
	// Stmts are its parse trees (several when the text holds several
	// statements, as a StatementBegin/End block may).
	Stmts []*pg.RawStmt
	// Err is the parse error, at the place the parser points to.
	Err *scan.Diagnostic
	// Skipped is set when the statement was never given to the parser
	// because its leading tokens show it cannot change the model.
	Skipped bool
	// Lookup is the table a skipped ALTER TABLE names: replay still looks
	// it up, so that a missing table gives the note it would have.
	Lookup *TableRef
	// Layout is the layout of the statement's file ("" when not read
	// from a tree): replay knows its tool's own tables by it.
	Layout layout.Layout
}

// Parse runs PostgreSQL's parser over one statement: the parse phase of
// Replayer.Apply. It touches no shared state, so statements can be parsed
// on several goroutines at once.
func Parse(st scan.Statement) *Parsed {
	stmts, perr := parseStatement(&st)
	return &Parsed{Statement: st, Stmts: stmts, Err: perr}
}

// Chunks bound both the work handed to one parser goroutine at a time and,
// with the window, how much text and how many parse trees are held at once.
const (
	chunkStatements = 64
	chunkBytes      = 64 << 10
	windowPerWorker = 4
)

// loadItem is one unit of the load pipeline, in migration order: discovery
// results, or a run of statements of one file. done is closed once the
// statements are parsed.
type loadItem struct {
	diags []scan.Diagnostic
	tree  *layout.Tree
	file  *loadFile
	first bool // the file's first item: counts the file
	stmts []scan.Statement
	whole []scan.Range
	// parsed are stmts after the parse phase, one for one; nil when Load
	// only splits.
	parsed []*Parsed
	// comments are the comments of the segment the statements come from,
	// on the segment's first item; notes are its split diagnostics not yet
	// placed among the statements, shared by its items; flush is set on
	// its last item, which places the rest.
	comments []scan.Comment
	notes    *pendingNotes
	flush    bool
	// skippedFiles counts the files a tree's layout leaves out, on the
	// tree's item; skippedStmts the statements skipped as template control
	// actions, on the first item of a segment.
	skippedFiles int
	skippedStmts int
	done         chan struct{}
	// size is the statement text the item holds in the text window.
	size int
}

// loadFile is what Load knows of one file.
type loadFile struct {
	path    string
	layout  layout.Layout
	readErr error
}

// pendingNotes are split diagnostics waiting for the statement they come
// before; only the consumer touches them.
type pendingNotes struct{ list []scan.Diagnostic }

// pipeline reads, splits and parses ahead of the goroutine that applies.
// One producer goroutine discovers, reads and splits files in order and
// cuts them into items; Workers goroutines parse the items; items reaches
// the consumer in order, and its capacity bounds how far ahead the others
// run.
type pipeline struct {
	items chan *loadItem
	jobs  chan *loadItem
	quit  chan struct{}
	wg    sync.WaitGroup
	text  *textWindow
}

// textWindow bounds the statement text sent and not yet applied. Items of
// small statements fill the item window first; a run of large statements
// (a generated CHECK, a seed INSERT ... ON CONFLICT) fills this one, so
// that their parse trees, which take tens of times their text, are not
// built far ahead of replay. An item larger than the window goes alone.
type textWindow struct {
	mu     sync.Mutex
	cond   sync.Cond
	used   int
	limit  int
	closed bool
}

func newTextWindow(limit int) *textWindow {
	w := &textWindow{limit: limit}
	w.cond.L = &w.mu
	return w
}

// acquire waits until n more bytes fit (or nothing else is in flight);
// false means the pipeline is stopping.
func (w *textWindow) acquire(n int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.used > 0 && w.used+n > w.limit && !w.closed {
		w.cond.Wait()
	}
	if w.closed {
		return false
	}
	w.used += n
	return true
}

func (w *textWindow) release(n int) {
	w.mu.Lock()
	w.used -= n
	w.mu.Unlock()
	w.cond.Broadcast()
}

func (w *textWindow) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cond.Broadcast()
}

func newPipeline(paths []string, opts LoadOptions) *pipeline {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	window := workers * windowPerWorker
	p := &pipeline{
		items: make(chan *loadItem, window),
		jobs:  make(chan *loadItem, window),
		quit:  make(chan struct{}),
		text:  newTextWindow(window * chunkBytes),
	}
	parse := opts.Apply != nil
	for range workers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for it := range p.jobs {
				if parse {
					parseItem(it, opts.FullParse)
				}
				close(it.done)
			}
		}()
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.produce(paths, opts)
	}()
	return p
}

// applied gives an item's text back to the window once it is applied.
func (p *pipeline) applied(it *loadItem) {
	if it.size > 0 {
		p.text.release(it.size)
	}
}

// stop ends the producer early when the consumer returns before reading
// every item (a panic in Apply) and waits for every goroutine.
func (p *pipeline) stop() {
	close(p.quit)
	p.text.close()
	for range p.items {
	}
	p.wg.Wait()
}

// send queues an item for parsing and, in order, for the consumer; false
// means the consumer has gone.
func (p *pipeline) send(it *loadItem) bool {
	it.done = make(chan struct{})
	for _, st := range it.stmts {
		it.size += len(st.Text)
	}
	if it.size > 0 && !p.text.acquire(it.size) {
		return false
	}
	select {
	case p.items <- it:
	case <-p.quit:
		return false
	}
	p.jobs <- it
	return true
}

// produce discovers every path and feeds every file of every tree, in order.
func (p *pipeline) produce(paths []string, opts LoadOptions) {
	defer close(p.jobs)
	defer close(p.items)
	dopts := layout.DiscoverOptions{Layout: opts.Layout, Stdin: opts.Stdin}
	var named []layout.SkippedFile // down migrations named on their own
	used := 0
	for _, path := range paths {
		trees, diags := layout.DiscoverPath(path, dopts)
		if !p.send(&loadItem{diags: diags}) {
			return
		}
		y := pathYield{path: path, forced: opts.Layout}
		for i := range trees {
			tree := &trees[i]
			if opts.Include != nil {
				tree.Files = slices.DeleteFunc(tree.Files, func(f layout.File) bool { return !opts.Include(f.Path) })
			}
			it := &loadItem{tree: tree, skippedFiles: len(tree.Skipped)}
			if tree.DownNamed {
				named = append(named, tree.Skipped...)
			} else {
				it.diags = skippedNotes(tree.Skipped)
			}
			if !p.send(it) {
				return
			}
			for j := range tree.Files {
				f := tree.Files[j]
				tree.Files[j].Release() // the text is f's now, and dropped once applied
				fy, ok := p.produceFile(f, opts.Vars)
				if !ok {
					return
				}
				y.add(fy)
			}
			y.addTree(tree)
		}
		used += y.files
		if d, empty := y.empty(); empty {
			if !p.send(&loadItem{diags: []scan.Diagnostic{d}}) {
				return
			}
		}
	}
	p.send(&loadItem{diags: namedDownDiagnostics(named, used > 0)})
}

// produceFile reads one file and sends its statements in chunks, a
// segment at a time as splitStreaming cuts them. It reports what the file
// yielded, and false when the consumer has gone.
func (p *pipeline) produceFile(f layout.File, vars scan.Vars) (fileYield, bool) {
	lf := &loadFile{path: f.Path, layout: f.Layout}
	in, err := layout.ReadUp(f)
	if err != nil {
		lf.readErr = err
		return fileYield{errors: true}, p.send(&loadItem{file: lf, first: true, flush: true})
	}
	in = scan.Fill(in, vars)
	var y fileYield
	first, sent := true, true
	scan.SplitStreaming(in, func(seg scan.SplitResult) bool {
		y.statements += len(seg.Statements) + seg.Skipped
		y.errors = y.errors || hasError(seg.Diagnostics)
		scan.SortDiagnostics(seg.Diagnostics)
		notes := &pendingNotes{list: seg.Diagnostics}
		comments := detachComments(seg.Comments)
		stmts := seg.Statements
		skipped := seg.Skipped
		for {
			n := chunkLen(stmts)
			it := &loadItem{file: lf, first: first, stmts: stmts[:n:n], whole: in.Whole,
				comments: comments, notes: notes, flush: n == len(stmts), skippedStmts: skipped}
			first, comments, skipped = false, nil, 0
			if sent = p.send(it); !sent || it.flush {
				return sent
			}
			stmts = stmts[n:]
		}
	})
	return y, sent
}

func hasError(diags []scan.Diagnostic) bool {
	for _, d := range diags {
		if d.Level == scan.Error {
			return true
		}
	}
	return false
}

// chunkLen is how many of stmts go into the next item.
func chunkLen(stmts []scan.Statement) int {
	size := 0
	for i, st := range stmts {
		size += len(st.Text)
		if i+1 >= chunkStatements || size >= chunkBytes {
			return i + 1
		}
	}
	return len(stmts)
}

// parseItem runs the parse phase over an item's statements, skipping those
// the prefilter rules out unless fullParse.
func parseItem(it *loadItem, fullParse bool) {
	it.parsed = make([]*Parsed, len(it.stmts))
	for i := range it.stmts {
		it.parsed[i] = parseAhead(&it.stmts[i], it.whole, fullParse)
		if it.file != nil {
			it.parsed[i].Layout = it.file.layout
		}
	}
}

// parseAhead is the parse phase as Load runs it: the prefilter first,
// unless fullParse, then quickParse's few shapes, then the parser.
func parseAhead(st *scan.Statement, whole []scan.Range, fullParse bool) *Parsed {
	if fullParse || inWhole(whole, st.Offset) {
		return Parse(*st)
	}
	if cannotChangeModel(st.Text) {
		return &Parsed{Statement: *st, Skipped: true}
	}
	if rv, ok := ownerOrDefaultTable(st.Text, scan.LeadingWords(st.Text, 3)); ok {
		return &Parsed{Statement: *st, Skipped: true, Lookup: rv}
	}
	if stmts, ok := quickParse(st.Text); ok {
		return &Parsed{Statement: *st, Stmts: stmts}
	}
	return Parse(*st)
}

// inWhole reports whether offset starts a StatementBegin/End block, which
// may hold several statements behind one leading token.
func inWhole(whole []scan.Range, offset int) bool {
	for _, r := range whole {
		if offset >= r.Start && offset < r.End {
			return true
		}
	}
	return false
}

// detachComments copies comment texts out of the file's text: the result
// keeps every comment, and a substring would keep every file whole.
func detachComments(comments []scan.Comment) []scan.Comment {
	for i := range comments {
		comments[i].Text = strings.Clone(comments[i].Text)
	}
	return comments
}
