package audit

import "github.com/idemcheck/idemcheck/catalog"

// nameIndex holds what rules look up once per finding and would otherwise
// find by scanning the whole catalog each time, which on a large catalog
// made the audit the slowest part of a run: the names taken (for fix SQL)
// and the statements replay could not follow (for notes). Rules only read
// the catalog, so each is built once per Run and stays valid for it.
type nameIndex struct {
	relations   map[*catalog.Schema]map[string]bool
	constraints map[*catalog.Schema]map[string]bool
	// unmodelled are the history's statements replay could not follow,
	// picked out of the whole history once.
	unmodelled     []catalog.Change
	unmodelledDone bool
	// hist and byTable order and group the history for placing findings
	// where their hole was opened (opened.go); built on first use.
	hist    *history
	byTable map[string][]catalog.Change
}

func newNameIndex() *nameIndex {
	return &nameIndex{relations: map[*catalog.Schema]map[string]bool{}, constraints: map[*catalog.Schema]map[string]bool{}}
}

// relationExists mirrors catalog.Schema.RelationExists: tables, indexes and
// sequences share one namespace.
func (x *nameIndex) relationExists(s *catalog.Schema, name string) bool {
	set, ok := x.relations[s]
	if !ok {
		set = map[string]bool{}
		for tn, t := range s.Tables {
			set[tn] = true
			for _, ix := range t.Indexes {
				set[ix.Name] = true
			}
		}
		for seq := range s.Sequences {
			set[seq] = true
		}
		x.relations[s] = set
	}
	return set[name]
}

// constraintExists mirrors catalog.Schema.ConstraintExists.
func (x *nameIndex) constraintExists(s *catalog.Schema, name string) bool {
	set, ok := x.constraints[s]
	if !ok {
		set = map[string]bool{}
		for _, t := range s.Tables {
			for _, ck := range t.Checks {
				set[ck.Name] = true
			}
			for _, ix := range t.Indexes {
				if ix.Constraint != "" {
					set[ix.Constraint] = true
				}
			}
		}
		x.constraints[s] = set
	}
	return set[name]
}

// unmodelledChanges returns the changes replay recorded as unmodelled.
func (x *nameIndex) unmodelledChanges(cat *catalog.Catalog) []catalog.Change {
	if x == nil {
		x = newNameIndex() // a Pass made outside Run: nothing to share
	}
	if !x.unmodelledDone {
		for _, ch := range cat.Changes {
			if ch.Kind == catalog.ChangeUnmodelled {
				x.unmodelled = append(x.unmodelled, ch)
			}
		}
		x.unmodelledDone = true
	}
	return x.unmodelled
}
