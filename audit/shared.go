package audit

import (
	"sync"

	"github.com/idemcheck/idemcheck/audit/internal/nullsafe"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/internal/parallel"
)

// results are what several rules read and each would otherwise compute
// again: the hole of each unique index, the order of the replayed history,
// the changes to each table and the statements replay could not follow
// (the names each schema holds, for naming fixes, the catalog keeps). Each is
// computed on first use and kept for the rest of one Run, which every pass
// of the Run shares: rules only read the catalog, so a result stays true
// while the Run lasts. A rule reaches them through the Pass methods below,
// the role go/analysis gives Requires and ResultOf.
type results struct {
	cat     *catalog.Catalog
	changes []catalog.Change
	// holes are findHoleIn's answers by index and by reading (holeKey).
	holes map[holeKey]*hole
	// hist orders the history; nil until first asked.
	hist *nullsafe.History
	// byTable groups the history's changes by "schema.table" at the time;
	// nil until first asked.
	byTable map[string][]catalog.Change
	// unmodelled are the history's statements replay could not follow.
	unmodelled     []catalog.Change
	unmodelledDone bool
	// mu guards holes while rules run on several goroutines.
	mu sync.Mutex
}

// holeKey names one reading of one index's hole: local is the reading of
// the table alone.
type holeKey struct {
	ix    *catalog.Index
	local bool
}

func newResults(cat *catalog.Catalog, hist *catalog.History) *results {
	return &results{cat: cat, changes: hist.Changes, holes: map[holeKey]*hole{}}
}

// holeOf is the hole in ix, a unique index of t, read with the whole
// catalog at hand (a domain over boolean reads as a boolean, a foreign key
// leads to the parents that scope rows without the part); nil when rows
// cannot escape it. nullable-key and optional-unique report it.
func (p *Pass) holeOf(t *catalog.Table, ix *catalog.Index) *hole {
	return p.results.hole(t, ix, false)
}

// tableHoleOf is the hole in ix as its table alone shows it: domains and
// foreign keys are not followed. The rules that only ask whether an index
// has a hole (not-null-dropped, on-conflict-hole, key-without-unique,
// idempotency-table-shape) read this one.
func (p *Pass) tableHoleOf(t *catalog.Table, ix *catalog.Index) *hole {
	return p.results.hole(t, ix, true)
}

func (r *results) hole(t *catalog.Table, ix *catalog.Index, local bool) *hole {
	key := holeKey{ix, local}
	r.mu.Lock()
	h, ok := r.holes[key]
	r.mu.Unlock()
	if ok {
		return h
	}
	cat := r.cat
	if local {
		cat = nil
	}
	h = findHoleIn(cat, t, ix)
	r.mu.Lock()
	defer r.mu.Unlock()
	if first, ok := r.holes[key]; ok {
		return first // another rule, on another goroutine, was first
	}
	r.holes[key] = h
	return h
}

// readAllAhead computes the results that are built on first use, so that
// rules running at once only read them; holes are guarded by mu instead.
func (r *results) readAllAhead() {
	p := &Pass{results: r}
	p.history()
	p.changesOf(&catalog.Table{})
	p.unmodelled()
}

// history orders the catalog's changes as replay applied them.
func (p *Pass) history() nullsafe.History {
	r := p.results
	if r.hist == nil {
		h := nullsafe.NewHistory(r.changes)
		r.hist = &h
	}
	return *r.hist
}

// changesOf returns the recorded changes to t (by the table's name at the
// time), in the order replay applied them.
func (p *Pass) changesOf(t *catalog.Table) []catalog.Change {
	r := p.results
	if r.byTable == nil {
		r.byTable = map[string][]catalog.Change{}
		for _, ch := range r.changes {
			if ch.Table != "" {
				key := ch.Schema + "." + ch.Table
				r.byTable[key] = append(r.byTable[key], ch)
			}
		}
	}
	return r.byTable[t.Schema+"."+t.Name]
}

// unmodelled returns the changes replay recorded as unmodelled: statements
// (a DO block, a function running DDL) whose effect the catalog lacks.
func (p *Pass) unmodelled() []catalog.Change {
	r := p.results
	if !r.unmodelledDone {
		for _, ch := range r.changes {
			if ch.Kind == catalog.ChangeUnmodelled {
				r.unmodelled = append(r.unmodelled, ch)
			}
		}
		r.unmodelledDone = true
	}
	return r.unmodelled
}

// readHolesAhead reads, on every core, the holes the rules of every run ask
// for: each checked index with the whole catalog at hand (nullable-key,
// optional-unique) and, with two parts or more, with its table alone
// (not-null-dropped). findHoleIn only reads the catalog and is most of an
// audit's time on a large schema; the rules then find the answers in
// results.holes as if they had asked first, and anything else is still
// read when asked. A small catalog stays on the calling goroutine.
//
// It returns how many goroutines it used: 1 when it left the holes to be
// read when asked.
func (r *results) readHolesAhead() int {
	type job struct {
		t   *catalog.Table
		key holeKey
	}
	var jobs []job
	checkedIndexes(r.cat, func(t *catalog.Table, ix *catalog.Index) {
		jobs = append(jobs, job{t, holeKey{ix, false}})
		if len(ix.Parts) >= 2 {
			jobs = append(jobs, job{t, holeKey{ix, true}})
		}
	})
	workers := parallel.Workers(len(jobs), holesPerWorker)
	if workers < 2 {
		return 1
	}
	tableIndex(r.cat) // built here, before the goroutines read it
	found := make([]*hole, len(jobs))
	parallel.Each(len(jobs), workers, func(i int) {
		cat := r.cat
		if jobs[i].key.local {
			cat = nil
		}
		found[i] = findHoleIn(cat, jobs[i].t, jobs[i].key.ix)
	})
	for i, j := range jobs {
		r.holes[j.key] = found[i]
	}
	return workers
}

// holesPerWorker is how many holes make another goroutine worth starting.
const holesPerWorker = 32
