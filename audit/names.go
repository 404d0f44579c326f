package audit

import "github.com/idemcheck/idemcheck/catalog"

// nameIndex answers "is this name taken?" for fix SQL without scanning every
// index of a schema for each question, which on a large catalog made naming
// the fixes the slowest part of a run. Rules only read the catalog, so the
// sets are built once per schema per Run and stay valid for it.
type nameIndex struct {
	relations   map[*catalog.Schema]map[string]bool
	constraints map[*catalog.Schema]map[string]bool
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
