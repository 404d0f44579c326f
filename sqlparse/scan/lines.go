package scan

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/idemcheck/idemcheck/catalog"
)

// lineIndex converts byte offsets of one file into line and column numbers.
type lineIndex struct {
	file   string
	src    string
	starts []int // byte offset of the first byte of each line
	// edits, when set, map offsets of the text with its placeholders
	// filled back to src, the file's own text.
	edits []textEdit
}

func newLineIndex(file, src string) *lineIndex {
	// Counted first, so that a large file's index is made once at its
	// size; IndexByte finds the line ends many bytes at a time.
	starts := make([]int, 1, strings.Count(src, "\n")+1)
	for at := 0; ; {
		i := strings.IndexByte(src[at:], '\n')
		if i < 0 {
			break
		}
		at += i + 1
		starts = append(starts, at)
	}
	return &lineIndex{file: file, src: src, starts: starts}
}

// pos returns the 1-based line and rune column of a byte offset.
func (li *lineIndex) pos(offset int) catalog.Pos {
	if li.edits != nil {
		offset = back(li.edits, offset)
	}
	if offset > len(li.src) {
		offset = len(li.src)
	}
	line := sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > offset }) - 1
	col := utf8.RuneCountInString(li.src[li.starts[line]:offset]) + 1
	return catalog.Pos{File: li.file, Line: line + 1, Col: col}
}
