package rails

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/frameworks/internal/ddl"
)

// The schema dumper writes a small, regular subset of Ruby: method calls with
// string, symbol, number, array, hash and lambda arguments, `do |t| ... end`
// blocks, comments and heredocs. The lexer reads that subset and nothing
// more; anything else becomes an error token that the parser reports with its
// line, so that one odd line costs that line only.

type tokKind int

const (
	tEOF tokKind = iota
	tNewline
	tIdent  // create_table, t, do, end, nil, true
	tConst  // ActiveRecord, BigDecimal
	tLabel  // null: (the text without the colon)
	tSymbol // :cascade, :"quoted"
	tString // "..." '...' and heredocs
	tNumber // 2024_01_01_000000, -1, 1.5
	tPunct  // ( ) [ ] { } , . :: => -> | = ;
	tError
)

type token struct {
	kind tokKind
	text string    // identifier, label, symbol name, number, punctuation, error message
	str  *ddl.Text // a string's or quoted symbol's content with its offsets
	off  int       // source offset of the token's first byte
	end  int       // source offset just past the token
}

// comment is one `#` comment, with the text after the `#`.
type comment struct {
	text string
	off  int
}

type lexer struct {
	src      string
	lines    *ddl.Lines
	i        int
	toks     []token
	comments []comment
	// heredocs waiting for the end of the current line, where their bodies
	// start: index into toks, the terminator, and whether it may be
	// indented (<<- and <<~) and whether the body is dedented (<<~).
	pending []heredoc
}

type heredoc struct {
	tok      int
	term     string
	indented bool
	squiggly bool
	raw      bool // <<~'SQL': no escapes
}

func lex(src string, lines *ddl.Lines) ([]token, []comment) {
	l := &lexer{src: src, lines: lines}
	l.run()
	return l.toks, l.comments
}

func (l *lexer) emit(k tokKind, text string, start int) {
	l.toks = append(l.toks, token{kind: k, text: text, off: start, end: l.i})
}

func (l *lexer) fail(start int, format string, args ...any) {
	l.toks = append(l.toks, token{kind: tError, text: fmt.Sprintf(format, args...), off: start, end: l.i})
}

func (l *lexer) peek(n int) byte {
	if l.i+n < len(l.src) {
		return l.src[l.i+n]
	}
	return 0
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (l *lexer) run() {
	for l.i < len(l.src) {
		c := l.src[l.i]
		start := l.i
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			l.i++
		case c == '\\' && l.peek(1) == '\n':
			l.i += 2 // line continuation
		case c == '#':
			end := strings.IndexByte(l.src[l.i:], '\n')
			if end < 0 {
				end = len(l.src) - l.i
			}
			l.comments = append(l.comments, comment{text: l.src[l.i+1 : l.i+end], off: l.i})
			l.i += end
		case c == '\n':
			l.i++
			l.emit(tNewline, "\n", start)
			l.heredocBodies()
		case isIdentStart(c):
			l.ident()
		case isDigit(c) || c == '-' && isDigit(l.peek(1)) && l.valueMayStart():
			l.number()
		case c == ':' && l.peek(1) == ':':
			l.i += 2
			l.emit(tPunct, "::", start)
		case c == ':' && l.peek(1) == '"':
			l.i++
			t := l.doubleQuoted()
			l.toks = append(l.toks, token{kind: tSymbol, text: t.Value, str: &t, off: start, end: l.i})
		case c == ':' && isIdentStart(l.peek(1)):
			l.i++
			for l.i < len(l.src) && isIdentChar(l.src[l.i]) {
				l.i++
			}
			if l.i < len(l.src) && (l.src[l.i] == '?' || l.src[l.i] == '!' || l.src[l.i] == '=') {
				l.i++
			}
			l.emit(tSymbol, l.src[start+1:l.i], start)
		case c == '"':
			t := l.doubleQuoted()
			l.stringToken(t, start)
		case c == '\'':
			t := l.singleQuoted()
			l.stringToken(t, start)
		case c == '<' && l.peek(1) == '<' && l.heredocStart():
		case c == '=' && l.peek(1) == '>', c == '-' && l.peek(1) == '>':
			l.i += 2
			l.emit(tPunct, l.src[start:l.i], start)
		case strings.IndexByte("()[]{},.|=;", c) >= 0:
			l.i++
			l.emit(tPunct, string(c), start)
		default:
			l.i++
			l.fail(start, "unexpected character %q", c)
		}
	}
	l.emit(tEOF, "", l.i)
}

// valueMayStart reports whether a '-' here starts a negative number rather
// than being a minus between two values.
func (l *lexer) valueMayStart() bool {
	if len(l.toks) == 0 {
		return true
	}
	last := l.toks[len(l.toks)-1]
	return last.kind == tPunct && last.text != ")" && last.text != "]" && last.text != "}" ||
		last.kind == tLabel || last.kind == tNewline
}

func (l *lexer) ident() {
	start := l.i
	for l.i < len(l.src) && isIdentChar(l.src[l.i]) {
		l.i++
	}
	if l.i < len(l.src) && (l.src[l.i] == '?' || l.src[l.i] == '!') && l.peek(1) != '=' {
		l.i++
	}
	word := l.src[start:l.i]
	// "null: false" is a label; "Foo::Bar" is not.
	if l.i < len(l.src) && l.src[l.i] == ':' && l.peek(1) != ':' {
		l.i++
		l.emit(tLabel, word, start)
		return
	}
	kind := tIdent
	if word[0] >= 'A' && word[0] <= 'Z' {
		kind = tConst
	}
	l.emit(kind, word, start)
}

func (l *lexer) number() {
	start := l.i
	if l.src[l.i] == '-' {
		l.i++
	}
	for l.i < len(l.src) && (isDigit(l.src[l.i]) || l.src[l.i] == '_') {
		l.i++
	}
	if l.i+1 < len(l.src) && l.src[l.i] == '.' && isDigit(l.src[l.i+1]) {
		l.i++
		for l.i < len(l.src) && (isDigit(l.src[l.i]) || l.src[l.i] == '_') {
			l.i++
		}
	}
	if l.i < len(l.src) && (l.src[l.i] == 'e' || l.src[l.i] == 'E') {
		l.i++
		if l.i < len(l.src) && (l.src[l.i] == '+' || l.src[l.i] == '-') {
			l.i++
		}
		for l.i < len(l.src) && isDigit(l.src[l.i]) {
			l.i++
		}
	}
	l.emit(tNumber, strings.ReplaceAll(l.src[start:l.i], "_", ""), start)
}

// stringToken emits a string, or a label when a quoted key is followed by a
// colon ("key": value).
func (l *lexer) stringToken(t ddl.Text, start int) {
	if l.i < len(l.src) && l.src[l.i] == ':' && l.peek(1) != ':' {
		l.i++
		l.emit(tLabel, t.Value, start)
		return
	}
	l.toks = append(l.toks, token{kind: tString, text: t.Value, str: &t, off: start, end: l.i})
}

// doubleQuoted reads a "..." literal at l.i. Interpolation cannot be
// evaluated; a schema dump never writes it, so it is kept as written.
func (l *lexer) doubleQuoted() ddl.Text {
	start := l.i
	l.i++ // opening quote
	var sb strings.Builder
	var offs []int
	for l.i < len(l.src) && l.src[l.i] != '"' {
		c := l.src[l.i]
		at := l.i
		if c == '\\' && l.i+1 < len(l.src) {
			l.i += 2
			switch e := l.src[l.i-1]; e {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'r':
				c = '\r'
			case '0':
				c = 0
			case 's':
				c = ' '
			case '\n':
				continue // an escaped newline joins the lines
			default:
				c = e
			}
		} else {
			l.i++
		}
		sb.WriteByte(c)
		offs = append(offs, at)
	}
	if l.i >= len(l.src) {
		l.fail(start, "unterminated string")
	} else {
		l.i++ // closing quote
	}
	return ddl.Text{Value: sb.String(), Offsets: append(offs, l.i), Lines: l.lines}
}

func (l *lexer) singleQuoted() ddl.Text {
	start := l.i
	l.i++
	var sb strings.Builder
	var offs []int
	for l.i < len(l.src) && l.src[l.i] != '\'' {
		at := l.i
		c := l.src[l.i]
		if c == '\\' && l.i+1 < len(l.src) && (l.src[l.i+1] == '\'' || l.src[l.i+1] == '\\') {
			c = l.src[l.i+1]
			l.i++
		}
		l.i++
		sb.WriteByte(c)
		offs = append(offs, at)
	}
	if l.i >= len(l.src) {
		l.fail(start, "unterminated string")
	} else {
		l.i++
	}
	return ddl.Text{Value: sb.String(), Offsets: append(offs, l.i), Lines: l.lines}
}

// heredocStart reads <<ID, <<-ID, <<~ID (ID may be quoted) and queues the
// body, which starts on the next line. It returns false when the text is not
// a heredoc, leaving l.i alone.
func (l *lexer) heredocStart() bool {
	j := l.i + 2
	h := heredoc{}
	if j < len(l.src) && (l.src[j] == '~' || l.src[j] == '-') {
		h.indented = true
		h.squiggly = l.src[j] == '~'
		j++
	}
	quote := byte(0)
	if j < len(l.src) && (l.src[j] == '\'' || l.src[j] == '"') {
		quote = l.src[j]
		h.raw = quote == '\''
		j++
	}
	k := j
	for k < len(l.src) && isIdentChar(l.src[k]) {
		k++
	}
	if k == j || !(l.src[j] >= 'A' && l.src[j] <= 'Z' || l.src[j] == '_' || quote != 0) {
		return false
	}
	h.term = l.src[j:k]
	if quote != 0 {
		if k >= len(l.src) || l.src[k] != quote {
			return false
		}
		k++
	}
	start := l.i
	l.i = k
	h.tok = len(l.toks)
	l.toks = append(l.toks, token{kind: tString, str: &ddl.Text{Lines: l.lines}, off: start, end: l.i})
	l.pending = append(l.pending, h)
	return true
}

// heredocBodies reads the bodies of the heredocs opened on the line that
// just ended, in order.
func (l *lexer) heredocBodies() {
	for _, h := range l.pending {
		type line struct {
			text string
			off  int
		}
		var body []line
		closed := false
		for l.i < len(l.src) {
			end := strings.IndexByte(l.src[l.i:], '\n')
			next := l.i + end + 1
			if end < 0 {
				end = len(l.src) - l.i
				next = len(l.src)
			}
			text := l.src[l.i : l.i+end]
			off := l.i
			l.i = next
			check := strings.TrimRight(text, "\r")
			if h.indented {
				check = strings.TrimLeft(check, " \t")
			}
			if check == h.term {
				closed = true
				break
			}
			body = append(body, line{text + "\n", off})
		}
		if !closed {
			l.toks[h.tok].kind = tError
			l.toks[h.tok].text = "heredoc <<" + h.term + " is never closed"
			continue
		}
		indent := 0
		if h.squiggly {
			indent = -1
			for _, ln := range body {
				if strings.TrimSpace(ln.text) == "" {
					continue
				}
				n := len(ln.text) - len(strings.TrimLeft(ln.text, " \t"))
				if indent < 0 || n < indent {
					indent = n
				}
			}
			if indent < 0 {
				indent = 0
			}
		}
		var sb strings.Builder
		var offs []int
		for _, ln := range body {
			cut := min(indent, len(ln.text)-1)
			if strings.TrimSpace(ln.text) == "" {
				cut = max(0, min(cut, len(ln.text)-1))
			}
			for k := cut; k < len(ln.text); k++ {
				c := ln.text[k]
				if !h.raw && c == '\\' && k+1 < len(ln.text) && ln.text[k+1] != '\n' {
					k++
					c = ln.text[k]
				}
				sb.WriteByte(c)
				offs = append(offs, ln.off+k)
			}
		}
		t := l.toks[h.tok].str
		t.Value = sb.String()
		t.Offsets = append(offs, l.i)
		l.toks[h.tok].text = t.Value
	}
	l.pending = nil
}
