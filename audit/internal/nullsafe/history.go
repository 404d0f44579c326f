package nullsafe

import "github.com/idemcheck/idemcheck/catalog"

// History orders positions of a replayed catalog: migration files in the
// order replay applied them, then line and column within a file. Rules
// about how a hole was opened ask "did this come before that". A live
// catalog has no changes, and every position ranks the same.
type History struct {
	fileRank map[string]int
}

// NewHistory ranks the files of the changes replay recorded.
func NewHistory(changes []catalog.Change) History {
	h := History{fileRank: map[string]int{}}
	for _, ch := range changes {
		for _, f := range []string{ch.File, ch.Pos.File} {
			if _, ok := h.fileRank[f]; !ok && f != "" {
				h.fileRank[f] = len(h.fileRank)
			}
		}
	}
	return h
}

// Before reports whether a was applied before b. Positions in files replay
// never recorded a change for sort after the others.
func (h History) Before(a, b catalog.Pos) bool {
	ra, rb := h.rank(a.File), h.rank(b.File)
	if ra != rb {
		return ra < rb
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}

func (h History) rank(file string) int {
	if r, ok := h.fileRank[file]; ok {
		return r
	}
	return len(h.fileRank)
}
