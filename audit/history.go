package audit

import "github.com/idemcheck/idemcheck/catalog"

// history orders positions of a replayed catalog: migration files in the
// order replay applied them, then line and column within a file. Rules
// about how a hole was opened ask "did this come before that".
type history struct {
	fileRank map[string]int
}

func newHistory(cat *catalog.Catalog) history {
	h := history{fileRank: map[string]int{}}
	for _, ch := range cat.Changes {
		for _, f := range []string{ch.File, ch.Pos.File} {
			if _, ok := h.fileRank[f]; !ok && f != "" {
				h.fileRank[f] = len(h.fileRank)
			}
		}
	}
	return h
}

// before reports whether a was applied before b. Positions in files replay
// never recorded a change for sort after the others.
func (h history) before(a, b catalog.Pos) bool {
	ra, rb := h.rank(a.File), h.rank(b.File)
	if ra != rb {
		return ra < rb
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

func (h history) rank(file string) int {
	if r, ok := h.fileRank[file]; ok {
		return r
	}
	return len(h.fileRank)
}

// changeAt returns the first change recorded at pos, or nil.
func changeAt(cat *catalog.Catalog, pos catalog.Pos, kinds ...catalog.ChangeKind) *catalog.Change {
	for i := range cat.Changes {
		ch := &cat.Changes[i]
		if ch.Pos != pos {
			continue
		}
		for _, k := range kinds {
			if ch.Kind == k {
				return ch
			}
		}
	}
	return nil
}

// isIndexCreation is a change that created a unique index or the index of a
// UNIQUE or PRIMARY KEY constraint.
func isIndexCreation(ch catalog.Change) bool {
	return (ch.Kind == catalog.ChangeCreateIndex || ch.Kind == catalog.ChangeAddConstraint) &&
		ch.Index != nil && (ch.Index.Unique || ch.Index.Primary)
}

// sameKey reports whether two indexes have the same key parts, in any
// order: uniqueness does not depend on the order.
func sameKey(a, b []catalog.IndexPart) bool {
	return len(a) == len(b) && partsSubset(a, b) && partsSubset(b, a)
}
