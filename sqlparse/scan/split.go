package scan

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/idemcheck/idemcheck/catalog"
)

// SplitResult is what Split found in one input.
type SplitResult struct {
	Statements []Statement
	// Comments holds every comment in the file, in order; suppression
	// directives are read from them.
	Comments []Comment
	// Diagnostics are notes for skipped text that is not SQL and errors for
	// unterminated quotes and comments and unreadable bytes.
	Diagnostics []Diagnostic
	// Skipped counts the statements skipped for a template placeholder
	// that could not be filled or stood in for.
	Skipped int
}

// Split cuts an up part into statements the way psql does, with exact
// positions. It never fails: what it cannot read is reported and skipped.
func Split(in Input) SplitResult {
	s := &splitter{
		src:     in.Text,
		file:    in.Path,
		whole:   in.Whole,
		control: in.control,
		lines:   in.lineIndex(),
	}
	s.templateNotes(in.notes, 0, len(in.Text))
	s.run()
	return s.res
}

// splitter is the state of one Split call.
type splitter struct {
	src     string
	file    string
	whole   []Range
	control []controlRange // template control actions that were not run
	lines   *lineIndex
	res     SplitResult
	pending []Comment // comments since the previous statement
}

// templateNotes adds Fill' notes for the text in [start, end).
func (s *splitter) templateNotes(notes []offsetNote, start, end int) {
	for _, n := range notes {
		if n.offset >= start && n.offset < end {
			s.note(n.offset, "%s", n.message)
		}
	}
}

// controlAt returns the template control action that the text in
// [start, end) overlaps, if any.
func (s *splitter) controlAt(start, end int) *controlRange {
	for i := range s.control {
		if c := &s.control[i]; c.Start < end && start < c.End {
			return c
		}
	}
	return nil
}

func (s *splitter) pos(offset int) catalog.Pos { return s.lines.pos(offset) }

func (s *splitter) note(offset int, format string, args ...any) {
	s.res.Diagnostics = append(s.res.Diagnostics, Diagnostic{Level: Note, Pos: s.pos(offset), Message: fmt.Sprintf(format, args...)})
}

func (s *splitter) errorAt(offset int, format string, args ...any) {
	s.res.Diagnostics = append(s.res.Diagnostics, Diagnostic{Level: Error, Pos: s.pos(offset), Message: fmt.Sprintf(format, args...)})
}

// unterminated reports text that opened at offset and never closed.
func (s *splitter) unterminated(offset int, what string) {
	s.errorAt(offset, "unterminated %s starting at %s; the rest of the file is not read", what, s.pos(offset))
}

// run walks the text between statements: blanks, empty statements,
// comments and psql meta-commands; anything else starts a statement.
func (s *splitter) run() { s.runFrom(0) }

// runFrom is run starting at offset i, which must lie between statements.
func (s *splitter) runFrom(i int) {
	for i < len(s.src) {
		c := s.src[i]
		switch {
		case IsSpace(c), c == ';':
			i++
		case strings.HasPrefix(s.src[i:], "--"):
			i = s.lineComment(i, true)
		case isTemplateComment(s.src[i:]):
			i = s.templateAlone(i)
		case strings.HasPrefix(s.src[i:], "/*"):
			i = s.blockComment(i, true)
		case c == '\\':
			i = s.metaCommand(i)
		default:
			i = s.statement(i)
		}
	}
}

// lineComment records a "--" comment and returns the offset of its line end.
func (s *splitter) lineComment(start int, pending bool) int {
	end := strings.IndexByte(s.src[start:], '\n')
	if end < 0 {
		end = len(s.src)
	} else {
		end += start
	}
	text := strings.TrimSuffix(s.src[start+2:end], "\r")
	s.addComment(Comment{Text: text, Pos: s.pos(start)}, pending)
	return end
}

// blockComment records a (nested) "/* */" comment and returns the offset
// after it, or len(src) when it never closes.
func (s *splitter) blockComment(start int, pending bool) int {
	end, ok := BlockCommentEnd(s.src, start)
	if !ok {
		s.unterminated(start, "comment")
		return len(s.src)
	}
	s.addComment(Comment{Text: s.src[start+2 : end-2], Pos: s.pos(start)}, pending)
	return end
}

func (s *splitter) addComment(c Comment, pending bool) {
	s.res.Comments = append(s.res.Comments, c)
	if pending {
		s.pending = append(s.pending, c)
	}
}

// templateAlone skips a "/* TEMPLATE: name */" placeholder that stands
// between statements: what it would expand to is unknown, and the statement
// after it is still read.
func (s *splitter) templateAlone(start int) int {
	end, ok := BlockCommentEnd(s.src, start)
	if !ok {
		s.unterminated(start, "template placeholder")
		return len(s.src)
	}
	s.note(start, "skipped template placeholder %s", s.src[start:end])
	return end
}

// templateComment matches "/* TEMPLATE: name */" placeholders.
var templateComment = regexp.MustCompile(`^/\*\s*TEMPLATE:`)

func isTemplateComment(s string) bool {
	if !strings.HasPrefix(s, "/*") {
		return false
	}
	if len(s) > 64 {
		s = s[:64] // the marker is at the start; do not hand the regexp the whole file
	}
	return templateComment.MatchString(s)
}

// metaCommand skips a psql meta-command up to the end of its line.
func (s *splitter) metaCommand(start int) int {
	end := strings.IndexByte(s.src[start:], '\n')
	if end < 0 {
		end = len(s.src)
	} else {
		end += start
	}
	word := s.src[start:end]
	if f := strings.Fields(word); len(f) > 0 {
		word = f[0]
	}
	s.note(start, "skipped psql meta-command %s", word)
	return end
}

// wholeAt returns the StatementBegin/End range that contains offset.
func (s *splitter) wholeAt(offset int) (Range, bool) {
	// Ranges come sorted and disjoint from ReadUp.
	i := sort.Search(len(s.whole), func(i int) bool { return s.whole[i].End > offset })
	if i < len(s.whole) && offset >= s.whole[i].Start {
		return s.whole[i], true
	}
	return Range{}, false
}

// IsSpace reports whether c is white space to PostgreSQL's lexer.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// IsIdentStart and IsIdentChar are PostgreSQL's identifier bytes: letters,
// _, any byte of a multi-byte character, and after the first, digits and $.
func IsIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func IsIdentChar(c byte) bool {
	return IsIdentStart(c) || (c >= '0' && c <= '9') || c == '$'
}

// copyFromStdin matches COPY statements whose data follows in the file.
var copyFromStdin = regexp.MustCompile(`(?is)^copy\s.*\sfrom\s+stdin\b`)

// isCopyFromStdin is copyFromStdin behind a check of the first word, which
// rules out almost every statement without running the expression.
func isCopyFromStdin(text string) bool {
	return len(text) > 4 && strings.EqualFold(text[:4], "copy") && copyFromStdin.MatchString(text)
}

// statement scans one statement from start and returns the offset after
// its terminating semicolon.
func (s *splitter) statement(start int) int {
	limit, whole := len(s.src), false
	if r, ok := s.wholeAt(start); ok {
		limit, whole = r.End, true
	}
	sc := stmtScanner{src: s.src, limit: limit, whole: whole, s: s}
	end, ok := sc.scan(start)
	if !ok {
		s.pending = nil
		return len(s.src)
	}
	if end <= start {
		end = start + 1 // always make progress
	}
	comments := s.pending
	s.pending = nil
	text := s.src[start:sc.lastEnd]
	switch {
	case text == "":
		return end
	case !whole && isCopyFromStdin(text):
		// First, so that the data lines are skipped even when the COPY
		// itself names a psql variable.
		return s.skipCopyData(start, end)
	case s.controlAt(start, sc.lastEnd) != nil:
		s.note(start, "skipped the statement starting at line %d: %s", s.pos(start).Line, s.controlAt(start, sc.lastEnd).why)
		s.res.Skipped++
		return end
	case sc.placeholder != "":
		s.note(sc.placeholderAt, "skipped the statement starting at line %d: it contains %s", s.pos(start).Line, sc.placeholder)
		s.res.Skipped++
		return end
	case !utf8.ValidString(text) || strings.IndexByte(text, 0) >= 0:
		at, what := badByte(text)
		s.errorAt(start+at, "%s in a statement; the statement is skipped", what)
		return end
	}
	s.res.Statements = append(s.res.Statements, Statement{
		Text:     text,
		Pos:      s.pos(start),
		Offset:   start,
		File:     s.file,
		Comments: comments,
		lines:    s.lines,
	})
	return end
}

// badByte returns the offset of the first NUL or invalid UTF-8 byte and
// says which it is.
func badByte(text string) (int, string) {
	for i, r := range text {
		if r == 0 {
			return i, "NUL byte"
		}
		if _, size := utf8.DecodeRuneInString(text[i:]); r == utf8.RuneError && size == 1 {
			return i, fmt.Sprintf("invalid UTF-8 byte 0x%02x", text[i])
		}
	}
	return 0, "invalid text"
}

// skipCopyData skips a COPY ... FROM stdin statement and its data lines up
// to the "\." line, as pg_dump writes them.
func (s *splitter) skipCopyData(start, end int) int {
	i := end
	if nl := strings.IndexByte(s.src[i:], '\n'); nl >= 0 {
		i += nl + 1
	} else {
		i = len(s.src)
	}
	rows := 0
	for i < len(s.src) {
		lineEnd := strings.IndexByte(s.src[i:], '\n')
		if lineEnd < 0 {
			lineEnd = len(s.src)
		} else {
			lineEnd += i
		}
		if strings.TrimRight(s.src[i:lineEnd], "\r") == `\.` {
			s.note(start, "skipped COPY ... FROM stdin and its %d data lines", rows)
			return lineEnd
		}
		rows++
		i = lineEnd + 1
	}
	s.errorAt(start, "COPY ... FROM stdin has no \\. line ending its data; the rest of the file is not read")
	return len(s.src)
}

// Excerpt shortens text to at most n runes on one line, for messages.
func Excerpt(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	r := []rune(text)
	return string(r[:n]) + "..."
}
