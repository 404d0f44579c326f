package audit

import "github.com/idemcheck/idemcheck/catalog"

// changeAt returns the first change recorded at pos, or nil.
func changeAt(changes []catalog.Change, pos catalog.Pos, kinds ...catalog.ChangeKind) *catalog.Change {
	for i := range changes {
		ch := &changes[i]
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
