package prisma

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/frameworks/internal/ddl"
)

// The Prisma Schema Language: blocks (datasource, generator, model, enum,
// view, type) of one declaration per line, with @field and @@block
// attributes whose arguments are strings, numbers, names, function calls,
// lists and (for partial indexes) objects.

type tokKind int

const (
	tEOF tokKind = iota
	tNewline
	tName   // model, String, db.VarChar, Cascade
	tString // "..."
	tNumber
	tPunct // { } ( ) [ ] , : = ? @ @@
	tError
)

type token struct {
	kind tokKind
	text string
	str  *ddl.Text
	off  int
	end  int
}

type comment struct {
	text string
	off  int
}

func lex(src string, lines *ddl.Lines) ([]token, []comment) {
	var toks []token
	var comments []comment
	i := 0
	emit := func(k tokKind, text string, start int) {
		toks = append(toks, token{kind: k, text: text, off: start, end: i})
	}
	for i < len(src) {
		c := src[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\n':
			i++
			emit(tNewline, "\n", start)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			text := strings.TrimPrefix(src[i+2:i+end], "/") // doc comments: ///
			comments = append(comments, comment{text: text, off: i})
			i += end
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				i = len(src)
				emit(tError, "unterminated /* comment", start)
				continue
			}
			body := src[i+2 : i+2+end]
			comments = append(comments, comment{text: body, off: i})
			// Newlines inside the comment still end a line.
			i += end + 4
			if strings.Contains(body, "\n") {
				toks = append(toks, token{kind: tNewline, text: "\n", off: start, end: i})
			}
		case c == '"':
			i++
			var sb strings.Builder
			var offs []int
			for i < len(src) && src[i] != '"' && src[i] != '\n' {
				at := i
				ch := src[i]
				if ch == '\\' && i+1 < len(src) {
					i++
					switch src[i] {
					case 'n':
						ch = '\n'
					case 't':
						ch = '\t'
					default:
						ch = src[i]
					}
				}
				i++
				sb.WriteByte(ch)
				offs = append(offs, at)
			}
			if i >= len(src) || src[i] != '"' {
				emit(tError, "unterminated string", start)
				continue
			}
			i++
			t := &ddl.Text{Value: sb.String(), Offsets: append(offs, i), Lines: lines}
			toks = append(toks, token{kind: tString, text: t.Value, str: t, off: start, end: i})
		case c == '@' && i+1 < len(src) && src[i+1] == '@':
			i += 2
			emit(tPunct, "@@", start)
		case isNameStart(c):
			for i < len(src) && (isNameChar(src[i]) || src[i] == '.' && i+1 < len(src) && isNameStart(src[i+1])) {
				i++
			}
			emit(tName, src[start:i], start)
		case c >= '0' && c <= '9' || c == '-' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			i++
			for i < len(src) && (src[i] >= '0' && src[i] <= '9' || src[i] == '.') {
				i++
			}
			emit(tNumber, src[start:i], start)
		case strings.IndexByte("{}()[],:=?@", c) >= 0:
			i++
			emit(tPunct, string(c), start)
		default:
			i++
			emit(tError, fmt.Sprintf("unexpected character %q", c), start)
		}
	}
	toks = append(toks, token{kind: tEOF, off: len(src), end: len(src)})
	return toks, comments
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isNameChar(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

// Syntax tree.

type valKind int

const (
	vString valKind = iota
	vNumber
	vName   // Cascade, Desc, true
	vCall   // now(), env("X"), raw("..."), b(sort: Desc)
	vList   // [a, b]
	vObject // { published: true }
)

type val struct {
	kind  valKind
	text  string    // string content, number, name, function name
	str   *ddl.Text // string content with offsets
	args  []arg     // a call's arguments, an object's entries
	items []val     // a list's items
	off   int
}

// refs is the list of field references a value stands for: the items of
// [a, b(sort: Desc)], or the one name Prisma also accepts without brackets
// (@@index(a), fields: a); nil for anything else.
func (v val) refs() []val {
	switch v.kind {
	case vList:
		return v.items
	case vName, vCall:
		return []val{v}
	}
	return nil
}

// arg is an argument: positional when key is "".
type arg struct {
	key string
	val val
}

type attribute struct {
	name string // "unique", "db.VarChar", "@map" is "map"
	args []arg
	off  int
	end  int
}

func (a *attribute) arg(key string, pos int) (val, bool) {
	n := 0
	for _, x := range a.args {
		if x.key == key {
			return x.val, true
		}
		if x.key == "" {
			if n == pos {
				return x.val, true
			}
			n++
		}
	}
	return val{}, false
}

type field struct {
	name     string
	typ      string
	typeArgs []arg // Unsupported("tsvector")
	optional bool
	list     bool
	attrs    []attribute
	off, end int
}

func (f *field) attr(name string) *attribute {
	for i := range f.attrs {
		if f.attrs[i].name == name {
			return &f.attrs[i]
		}
	}
	return nil
}

// block is a model, view, type, enum, datasource or generator.
type block struct {
	kind     string
	name     string
	fields   []field     // models, views, types; enum values (typ empty)
	attrs    []attribute // @@ attributes
	props    []arg       // datasource and generator key = value
	off, end int
}

func (b *block) attr(name string) *attribute {
	for i := range b.attrs {
		if b.attrs[i].name == name {
			return &b.attrs[i]
		}
	}
	return nil
}

type parseError struct {
	off int
	msg string
}

type bail struct{ parseError }

type parser struct {
	toks []token
	i    int
	errs []parseError
}

func (p *parser) tok() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) is(k tokKind, text string) bool {
	t := p.tok()
	return t.kind == k && (text == "" || t.text == text)
}

func (p *parser) failf(format string, args ...any) {
	panic(bail{parseError{off: p.tok().off, msg: fmt.Sprintf(format, args...)}})
}

func (p *parser) expect(text string) token {
	if !p.is(tPunct, text) {
		p.failf("expected %q, found %s", text, describe(p.tok()))
	}
	return p.next()
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the file"
	case tNewline:
		return "the end of the line"
	case tError:
		return t.text
	case tString:
		return "a string"
	}
	return fmt.Sprintf("%q", t.text)
}

func (p *parser) skipNewlines() {
	for p.is(tNewline, "") {
		p.next()
	}
}

// recover runs f; a parse error is recorded and the parser skips to the end
// of the line (and, inside nothing, to the next block).
func (p *parser) guard(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			b, isBail := r.(bail)
			if !isBail {
				panic(r)
			}
			p.errs = append(p.errs, b.parseError)
			for !p.is(tNewline, "") && !p.is(tEOF, "") {
				p.next()
			}
			ok = false
		}
	}()
	f()
	return true
}

func (p *parser) file() []*block {
	var out []*block
	for {
		p.skipNewlines()
		if p.is(tEOF, "") {
			return out
		}
		var b *block
		if p.guard(func() { b = p.blockHeader() }) {
			p.blockBody(b)
			out = append(out, b)
			continue
		}
		// Skip to the next line that starts a block.
		for !p.is(tEOF, "") && !(p.toks[p.i-1].kind == tNewline && p.is(tName, "") && isBlockKind(p.tok().text)) {
			p.next()
		}
	}
}

func isBlockKind(s string) bool {
	switch s {
	case "model", "enum", "datasource", "generator", "view", "type":
		return true
	}
	return false
}

func (p *parser) blockHeader() *block {
	t := p.next()
	if t.kind != tName || !isBlockKind(t.text) {
		p.failf("expected model, enum, datasource, generator, view or type, found %s", describe(t))
	}
	name := p.next()
	if name.kind != tName {
		p.failf("expected a name after %s", t.text)
	}
	p.expect("{")
	return &block{kind: t.text, name: name.text, off: t.off}
}

func (p *parser) blockBody(b *block) {
	for {
		p.skipNewlines()
		if p.is(tPunct, "}") {
			b.end = p.next().end
			return
		}
		if p.is(tEOF, "") {
			p.errs = append(p.errs, parseError{off: b.off, msg: b.kind + " " + b.name + " is never closed with }"})
			b.end = p.tok().off
			return
		}
		p.guard(func() { p.line(b) })
	}
}

// line reads one line of a block: a block attribute, a property, a field or
// an enum value.
func (p *parser) line(b *block) {
	if p.is(tPunct, "@@") {
		b.attrs = append(b.attrs, p.attribute())
		p.endOfLine()
		return
	}
	name := p.next()
	if name.kind != tName {
		p.failf("expected a field, found %s", describe(name))
	}
	switch b.kind {
	case "datasource", "generator":
		p.expect("=")
		b.props = append(b.props, arg{key: name.text, val: p.value()})
		p.endOfLine()
		return
	case "enum":
		f := field{name: name.text, off: name.off, end: name.end}
		for p.is(tPunct, "@") {
			f.attrs = append(f.attrs, p.attribute())
		}
		b.fields = append(b.fields, f)
		p.endOfLine()
		return
	}
	f := field{name: name.text, off: name.off}
	typ := p.next()
	if typ.kind != tName {
		p.failf("expected the type of %s, found %s", name.text, describe(typ))
	}
	f.typ = typ.text
	if p.is(tPunct, "(") && p.tok().off == typ.end { // Unsupported("...")
		p.next()
		f.typeArgs = p.args(")")
	}
	switch {
	case p.is(tPunct, "?"):
		p.next()
		f.optional = true
	case p.is(tPunct, "["):
		p.next()
		p.expect("]")
		f.list = true
		if p.is(tPunct, "?") { // Type[]? is accepted by old Prisma versions
			p.next()
		}
	}
	f.end = p.toks[p.i-1].end
	for p.is(tPunct, "@") {
		f.attrs = append(f.attrs, p.attribute())
	}
	b.fields = append(b.fields, f)
	p.endOfLine()
}

func (p *parser) endOfLine() {
	if !p.is(tNewline, "") && !p.is(tEOF, "") && !p.is(tPunct, "}") {
		p.failf("unexpected %s", describe(p.tok()))
	}
}

// attribute reads @name(args) or @@name(args).
func (p *parser) attribute() attribute {
	at := p.next()
	name := p.next()
	if name.kind != tName {
		p.failf("expected an attribute name after %s", at.text)
	}
	a := attribute{name: name.text, off: at.off, end: name.end}
	if p.is(tPunct, "(") {
		p.next()
		a.args = p.args(")")
		a.end = p.toks[p.i-1].end
	}
	return a
}

// args reads arguments up to close, which it consumes.
func (p *parser) args(close string) []arg {
	var out []arg
	for {
		p.skipNewlines()
		if p.is(tPunct, close) {
			p.next()
			return out
		}
		a := arg{}
		if p.is(tName, "") && p.toks[p.i+1].kind == tPunct && p.toks[p.i+1].text == ":" {
			a.key = p.next().text
			p.next()
		}
		a.val = p.value()
		out = append(out, a)
		p.skipNewlines()
		if p.is(tPunct, ",") {
			p.next()
			continue
		}
		if !p.is(tPunct, close) {
			p.failf("expected %q or \",\", found %s", close, describe(p.tok()))
		}
	}
}

func (p *parser) value() val {
	t := p.tok()
	v := val{off: t.off}
	switch {
	case t.kind == tString:
		p.next()
		v.kind, v.text, v.str = vString, t.text, t.str
	case t.kind == tNumber:
		p.next()
		v.kind, v.text = vNumber, t.text
	case t.kind == tName:
		p.next()
		v.kind, v.text = vName, t.text
		if p.is(tPunct, "(") {
			p.next()
			v.kind, v.args = vCall, p.args(")")
		}
	case t.kind == tPunct && t.text == "[":
		p.next()
		v.kind = vList
		for {
			p.skipNewlines()
			if p.is(tPunct, "]") {
				p.next()
				break
			}
			v.items = append(v.items, p.value())
			p.skipNewlines()
			if p.is(tPunct, ",") {
				p.next()
			} else if !p.is(tPunct, "]") {
				p.failf("expected \"]\" or \",\", found %s", describe(p.tok()))
			}
		}
	case t.kind == tPunct && t.text == "{":
		p.next()
		v.kind = vObject
		for {
			p.skipNewlines()
			if p.is(tPunct, "}") {
				p.next()
				break
			}
			k := p.next()
			if k.kind != tName && k.kind != tString {
				p.failf("expected a key, found %s", describe(k))
			}
			p.expect(":")
			v.args = append(v.args, arg{key: k.text, val: p.value()})
			p.skipNewlines()
			if p.is(tPunct, ",") {
				p.next()
			}
		}
	case t.kind == tError:
		p.failf("%s", t.text)
	default:
		p.failf("expected a value, found %s", describe(t))
	}
	return v
}
