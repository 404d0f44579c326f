package scan

import "strings"

// segmentBytes is how much of a large file is split before its statements
// go to the parser: a schema dump of several megabytes would otherwise keep
// every parser goroutine waiting until the whole file is split.
const segmentBytes = 64 << 10

// cutRetries is how many later cuts a segment tries when its first cut
// falls inside a statement, before it takes the rest of the file.
const cutRetries = 3

// SplitStreaming is Split delivered in segments, in order, as each is cut:
// the statements, comments and diagnostics of all segments together are
// exactly Split's. A segment ends before a line that starts with a word or
// a line comment (pg_dump puts one before every object) right after a line
// ending in a semicolon; the split of a segment is trusted only when it
// ends on that semicolon with nothing unterminated or pending, and
// otherwise the next few cuts are tried, then the rest of the file is split
// in one piece. emit returning false stops the split.
func SplitStreaming(in Input, emit func(SplitResult) bool) {
	splitSegments(in, segmentBytes, emit)
}

// splitSegments is SplitStreaming with segments of about size bytes.
func splitSegments(in Input, size int, emit func(SplitResult) bool) {
	if len(in.Whole) > 0 || len(in.Text) < 2*size {
		emit(Split(in))
		return
	}
	li := in.lineIndex()
	for start := 0; start < len(in.Text); {
		end := nextCut(in.Text, start+size)
		res, clean := splitRange(in, li, start, end)
		// A cut inside a function body or a string is not clean: try the
		// next few cuts, then take the rest of the file in one piece.
		for try := 0; !clean; try++ {
			if end = nextCut(in.Text, end+1); try == cutRetries || end == len(in.Text) {
				end = len(in.Text)
			}
			res, clean = splitRange(in, li, start, end)
		}
		if !emit(res) {
			return
		}
		start = end
	}
}

// splitRange splits in.Text[start:end] with the file's positions; clean
// reports whether the split ended between statements.
func splitRange(in Input, li *lineIndex, start, end int) (SplitResult, bool) {
	s := &splitter{src: in.Text[:end], file: in.Path, whole: in.Whole, control: in.control, lines: li}
	s.templateNotes(in.notes, start, end)
	s.runFrom(start)
	return s.res, end == len(in.Text) || s.endedCleanly()
}

// endedCleanly is true when the split's last statement was closed by the
// semicolon just before the end of the text, and nothing was left open or
// waiting for the next statement.
func (s *splitter) endedCleanly() bool {
	if len(s.pending) > 0 || len(s.res.Statements) == 0 {
		return false
	}
	for _, d := range s.res.Diagnostics {
		if d.Level == Error {
			return false
		}
	}
	last := s.res.Statements[len(s.res.Statements)-1]
	tail := strings.TrimLeft(s.src[last.Offset+len(last.Text):], " \t\r\n\f\v")
	return strings.HasPrefix(tail, ";") && strings.TrimLeft(tail[1:], " \t\r\n\f\v") == ""
}

// nextCut finds, from offset from on, the start of a line that begins with
// a letter or "--" right after a line ending in a semicolon (blank lines
// between them allowed); len(text) when there is none.
func nextCut(text string, from int) int {
	for from < len(text) {
		i := strings.Index(text[from:], ";\n")
		if i < 0 {
			return len(text)
		}
		j := from + i + 2
		for j < len(text) && IsSpace(text[j]) {
			j++
		}
		if j < len(text) && (isWordByte(text[j]) || strings.HasPrefix(text[j:], "--")) {
			return j
		}
		from = j
	}
	return len(text)
}
