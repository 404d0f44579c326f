package scan

import (
	"strings"
)

// stmtScanner reads the tokens of one statement, tracking what psql tracks
// to find its end: quotes, dollar quotes, comments, parentheses and the
// BEGIN ... END bodies of SQL-standard function bodies.
type stmtScanner struct {
	src   string
	limit int  // scanning stops here (end of text or of a Whole range)
	whole bool // a StatementBegin/End range: semicolons do not end it
	s     *splitter

	lastEnd       int // offset after the last token, so Text has no trailing blanks
	parenDepth    int
	beginDepth    int
	identCount    int
	idents        [4]byte // first letters of the leading CREATE [OR REPLACE] FUNCTION words
	placeholder   string  // the first template placeholder left unfilled
	placeholderAt int
}

// scan reads from start to the end of the statement and returns the offset
// after its semicolon (or where it stopped). ok is false when an
// unterminated quote or comment ended the file.
func (sc *stmtScanner) scan(start int) (end int, ok bool) {
	sc.lastEnd = start
	i := start
	for i < sc.limit {
		c := sc.src[i]
		next := byte(0)
		if i+1 < sc.limit {
			next = sc.src[i+1]
		}
		tokenEnd := -1
		switch {
		case IsSpace(c):
			i++
			continue
		case c == '-' && next == '-':
			i = sc.s.lineComment(i, false)
			continue
		case c == '/' && next == '*':
			if isTemplateComment(sc.src[i:]) {
				e, closed := BlockCommentEnd(sc.src, i)
				if !closed {
					sc.s.unterminated(i, "template placeholder")
					return len(sc.src), false
				}
				sc.setPlaceholder(i, "template placeholder "+sc.src[i:e])
				tokenEnd = e
				break
			}
			e, closed := BlockCommentEnd(sc.src, i)
			if !closed {
				sc.s.unterminated(i, "comment")
				return len(sc.src), false
			}
			sc.s.addComment(Comment{Text: sc.src[i+2 : e-2], Pos: sc.s.pos(i)}, false)
			i = e
			continue
		case c == ';':
			if !sc.whole && sc.parenDepth == 0 && sc.beginDepth == 0 {
				return i + 1, true
			}
			i++
			if !sc.whole {
				sc.lastEnd = i
			}
			continue
		case c == '\\' && !sc.whole:
			// A psql meta-command such as \gexec ends the statement buffer.
			return i, true
		case c == '\'':
			tokenEnd = sc.quoted(i, '\'', false, "quoted string")
		case c == '"':
			tokenEnd = sc.quoted(i, '"', false, "quoted identifier")
		case c == '$' && next == '{':
			tokenEnd = sc.bracePlaceholder(i, 2, "}")
		case c == '{' && next == '{':
			tokenEnd = sc.bracePlaceholder(i, 2, "}}")
		case c == '$':
			tokenEnd = sc.dollar(i)
		case c == '(':
			sc.parenDepth++
			tokenEnd = i + 1
		case c == ')':
			if sc.parenDepth > 0 {
				sc.parenDepth--
			}
			tokenEnd = i + 1
		case IsIdentStart(c):
			tokenEnd = sc.word(i)
		default:
			tokenEnd = i + 1
		}
		if tokenEnd < 0 {
			return len(sc.src), false
		}
		i = tokenEnd
		sc.lastEnd = i
	}
	return i, true
}

func (sc *stmtScanner) setPlaceholder(at int, what string) {
	if sc.placeholder == "" {
		sc.placeholder, sc.placeholderAt = what, at
	}
}

// quoted scans a quoted string or identifier whose quote is doubled to
// escape it; escapes also allows backslash escapes (E'...'). It returns the
// offset after the closing quote, or -1 after reporting it unterminated.
func (sc *stmtScanner) quoted(start int, quote byte, escapes bool, what string) int {
	if end, ok := quotedEnd(sc.src, start, quote, escapes); ok {
		return end
	}
	sc.s.unterminated(start, what)
	return -1
}

// dollar scans a dollar-quoted string ($$...$$, $tag$...$tag$); a lone "$"
// or a parameter ($1) is an ordinary token.
func (sc *stmtScanner) dollar(start int) int {
	tag := DollarTag(sc.src, start)
	if tag == "" {
		return start + 1
	}
	closeAt := strings.Index(sc.src[start+len(tag):], tag)
	if closeAt < 0 {
		sc.s.unterminated(start, "dollar-quoted string "+tag)
		return -1
	}
	return start + len(tag) + closeAt + len(tag)
}

// bracePlaceholder skips a template placeholder ({{ ... }}, ${name}) that
// Fill left in place because it could not tell what it stands
// for; the statement is then skipped.
func (sc *stmtScanner) bracePlaceholder(start, open int, closer string) int {
	e := strings.Index(sc.src[start+open:], closer)
	if e < 0 {
		sc.s.unterminated(start, "template placeholder")
		return -1
	}
	end := start + open + e + len(closer)
	sc.setPlaceholder(start, "template placeholder "+sc.src[start:end])
	return end
}

// word scans an identifier or keyword, an E” string that starts with one,
// and keeps psql's count of BEGIN/CASE ... END inside CREATE FUNCTION and
// CREATE PROCEDURE so that semicolons in a BEGIN ATOMIC body do not end
// the statement.
func (sc *stmtScanner) word(start int) int {
	end := start
	for end < len(sc.src) && IsIdentChar(sc.src[end]) {
		end++
	}
	if end-start == 1 && sc.src[start]|0x20 == 'e' && end < len(sc.src) && sc.src[end] == '\'' {
		return sc.quoted(end, '\'', true, "escape string")
	}
	sc.trackBlock(blockWord(sc.src[start:end]))
	return end
}

// blockWords are the words trackBlock reads.
var blockWords = []string{"create", "function", "procedure", "or", "replace", "begin", "case", "end"}

// blockWord is w lower-cased when it is one of blockWords, else "": every
// other word counts the same, and a split reads every word of a file.
func blockWord(w string) string {
	for _, k := range blockWords {
		if len(w) == len(k) && strings.EqualFold(w, k) {
			return k
		}
	}
	return ""
}

func (sc *stmtScanner) trackBlock(w string) {
	switch w {
	case "create", "function", "procedure", "or", "replace":
		if sc.identCount < len(sc.idents) {
			sc.idents[sc.identCount] = w[0]
		}
	}
	sc.identCount++
	id := sc.idents
	isRoutine := id[0] == 'c' && (id[1] == 'f' || id[1] == 'p' ||
		(id[1] == 'o' && id[2] == 'r' && (id[3] == 'f' || id[3] == 'p')))
	if !isRoutine || sc.parenDepth != 0 {
		return
	}
	switch w {
	case "begin":
		sc.beginDepth++
	case "case":
		if sc.beginDepth >= 1 {
			sc.beginDepth++
		}
	case "end":
		if sc.beginDepth > 0 {
			sc.beginDepth--
		}
	}
}
