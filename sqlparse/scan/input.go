package scan

// Range is a span of byte offsets in Input.Text.
type Range struct{ Start, End int }

// Input is the "up" part of one migration file, ready to split.
type Input struct {
	// Path is the file's display path, used in positions.
	Path string
	// Text is the file with everything that is not "up" SQL replaced by
	// spaces (newlines kept), so that offsets, lines and columns are the
	// original file's.
	Text string
	// Whole holds ranges that are exactly one statement (goose and
	// sql-migrate StatementBegin/StatementEnd).
	Whole []Range
	// NoTransaction is set by "-- +goose NO TRANSACTION" and friends.
	NoTransaction bool

	// After Fill: source is the text before placeholders were
	// filled, and edits map offsets of Text back to it, so that positions
	// stay the file's own (nil when nothing was filled). notes are the
	// template notes and control the spans whose statements are skipped.
	source  string
	edits   []textEdit
	notes   []offsetNote
	control []controlRange
}

// lineIndex maps offsets of Text to positions in the file.
func (in Input) lineIndex() *lineIndex {
	if in.edits == nil {
		return newLineIndex(in.Path, in.Text)
	}
	li := newLineIndex(in.Path, in.source)
	li.edits = in.edits
	return li
}

// NewStatement builds a Statement for src as if it were the whole file, its
// text starting at byte offset within src. Tests and callers that have a
// single statement in hand use it; file splitting builds Statements itself.
func NewStatement(file, src string, offset int) Statement {
	if offset < 0 || offset > len(src) {
		offset = 0
	}
	li := newLineIndex(file, src)
	return Statement{
		Text:   src[offset:],
		Pos:    li.pos(offset),
		Offset: offset,
		File:   file,
		lines:  li,
	}
}
