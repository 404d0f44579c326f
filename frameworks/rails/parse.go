package rails

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/frameworks/internal/ddl"
)

// valueKind says what a Ruby literal is.
type valueKind int

const (
	vNil valueKind = iota
	vString
	vSymbol
	vNumber
	vBool
	vArray
	vHash
	vLambda // -> { ... }: the body, a string literal when the dumper wrote it
	vOther  // a constant, a call or an identifier: kept as written
)

// value is one argument of a call.
type value struct {
	kind  valueKind
	text  string    // string and symbol content, number, "true"/"false", or the source text of vOther
	str   *ddl.Text // the content with offsets, for strings
	items []value   // array elements; a lambda's body
	pairs []pair    // hash entries
	off   int
}

type pair struct {
	key string
	val value
}

// call is one method call of the schema: `create_table "users", force:
// :cascade do |t| ... end`, `t.index [...], name: ...`.
type call struct {
	recv  string // "t" for t.string; "" for a bare call
	name  string
	args  []value
	opts  []pair // trailing keyword arguments, in order
	block *block
	off   int // the first token
	end   int // just past the last token of the call (before a block)
	// subscript holds `[7.1]` of ActiveRecord::Schema[7.1].define.
	subscript []value
}

type block struct {
	param string
	calls []call
}

func (c *call) opt(key string) (value, bool) {
	for _, p := range c.opts {
		if p.key == key {
			return p.val, true
		}
	}
	return value{}, false
}

// parseError is a line the parser could not read; parsing goes on after it.
type parseError struct {
	off int
	msg string
}

type parser struct {
	src  string
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

func (p *parser) skipNewlines() {
	for p.is(tNewline, "") || p.is(tPunct, ";") {
		p.next()
	}
}

// bail is how a parse function gives up on the current statement.
type bail struct{ parseError }

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

// statements reads calls up to `end` (consumed by the caller) or the end of
// the file.
func (p *parser) statements() []call {
	var out []call
	for {
		p.skipNewlines()
		if p.is(tEOF, "") || p.is(tIdent, "end") || p.is(tPunct, "}") {
			return out
		}
		if c, ok := p.statement(); ok {
			out = append(out, c)
		}
	}
}

// statement reads one call; on a line it cannot read it records the error,
// skips to the end of that line (or of its block) and returns false.
func (p *parser) statement() (c call, ok bool) {
	start := p.i
	defer func() {
		if r := recover(); r != nil {
			b, isBail := r.(bail)
			if !isBail {
				panic(r)
			}
			p.errs = append(p.errs, b.parseError)
			p.recoverTo(start)
			ok = false
		}
	}()
	return p.call(), true
}

// recoverTo skips the statement that began at token start: to the end of its
// line, or past its `do ... end` block.
func (p *parser) recoverTo(start int) {
	p.i = start
	depth := 0
	for !p.is(tEOF, "") {
		t := p.next()
		switch {
		case t.kind == tIdent && t.text == "do":
			depth++
		case t.kind == tIdent && t.text == "end":
			if depth == 0 {
				p.i-- // the enclosing block's end
				return
			}
			depth--
			if depth == 0 {
				return
			}
		case t.kind == tNewline && depth == 0:
			return
		}
	}
}

func (p *parser) call() call {
	t := p.tok()
	c := call{off: t.off}
	switch t.kind {
	case tIdent, tConst:
	default:
		p.failf("expected a method call, found %s", describe(t))
	}
	// The callee: a.b, A::B[7.1].define, t.index.
	var path []string
	for {
		t := p.next()
		if t.kind != tIdent && t.kind != tConst {
			p.failf("expected a name, found %s", describe(t))
		}
		path = append(path, t.text)
		if p.is(tPunct, "[") && t.kind == tConst {
			p.next()
			c.subscript = p.list("]")
		}
		if p.is(tPunct, ".") || p.is(tPunct, "::") {
			p.next()
			continue
		}
		break
	}
	c.name = path[len(path)-1]
	if len(path) > 1 {
		c.recv = strings.Join(path[:len(path)-1], ".")
	}
	c.end = p.toks[p.i-1].end
	switch {
	case p.is(tPunct, "(") && p.toks[p.i].off == c.end:
		p.next()
		p.skipNewlines()
		c.args, c.opts = p.arguments(")")
		c.end = p.expect(")").end
	case p.argumentMayStart():
		c.args, c.opts = p.arguments("")
		c.end = p.toks[p.i-1].end
	}
	if p.is(tIdent, "do") {
		p.next()
		c.block = &block{}
		if p.is(tPunct, "|") {
			p.next()
			if p.is(tIdent, "") {
				c.block.param = p.next().text
			}
			p.expect("|")
		}
		c.block.calls = p.statements()
		if !p.is(tIdent, "end") {
			p.failf("block of %s is never closed with end", c.name)
		}
		p.next()
	}
	if !(p.is(tNewline, "") || p.is(tEOF, "") || p.is(tPunct, ";") || p.is(tIdent, "end")) {
		p.failf("unexpected %s after the arguments of %s", describe(p.tok()), c.name)
	}
	return c
}

// argumentMayStart reports whether the token after a callee begins an
// argument list written without parentheses.
func (p *parser) argumentMayStart() bool {
	t := p.tok()
	switch t.kind {
	case tString, tSymbol, tNumber, tLabel, tConst:
		return true
	case tIdent:
		return t.text != "do" && t.text != "end"
	case tPunct:
		return t.text == "[" || t.text == "->"
	case tError:
		p.failf("%s", t.text)
	}
	return false
}

// arguments reads positional arguments followed by keyword arguments, up to
// close (")"), or to the end of the line when close is "".
func (p *parser) arguments(close string) ([]value, []pair) {
	var args []value
	var opts []pair
	for {
		if close != "" && p.is(tPunct, close) {
			return args, opts
		}
		if k, ok := p.key(); ok {
			opts = append(opts, pair{key: k, val: p.value()})
		} else {
			v := p.value()
			if p.is(tPunct, "=>") { // "key" => value
				p.next()
				opts = append(opts, pair{key: v.text, val: p.value()})
			} else if len(opts) > 0 {
				p.failf("positional argument after keyword arguments")
			} else {
				args = append(args, v)
			}
		}
		if !p.is(tPunct, ",") {
			if close != "" {
				p.skipNewlines()
			}
			return args, opts
		}
		p.next()
		p.skipNewlines()
	}
}

// key reads `name:` or `:name =>`, returning false (and consuming nothing)
// for anything else.
func (p *parser) key() (string, bool) {
	t := p.tok()
	if t.kind == tLabel {
		p.next()
		return t.text, true
	}
	if t.kind == tSymbol && p.toks[p.i+1].kind == tPunct && p.toks[p.i+1].text == "=>" {
		p.i += 2
		return t.text, true
	}
	return "", false
}

// list reads values separated by commas up to close.
func (p *parser) list(close string) []value {
	var out []value
	p.skipNewlines()
	for !p.is(tPunct, close) {
		out = append(out, p.value())
		p.skipNewlines()
		if p.is(tPunct, ",") {
			p.next()
			p.skipNewlines()
			continue
		}
		if !p.is(tPunct, close) {
			p.failf("expected %q or \",\", found %s", close, describe(p.tok()))
		}
	}
	p.next()
	return out
}

func (p *parser) value() value {
	t := p.tok()
	v := value{off: t.off}
	switch t.kind {
	case tString:
		p.next()
		v.kind, v.text, v.str = vString, t.text, t.str
		// Adjacent literals are one string: "a" "b".
		for p.is(tString, "") {
			n := p.next()
			joined := ddl.Text{Value: v.str.Value + n.str.Value, Lines: v.str.Lines,
				Offsets: append(append([]int(nil), v.str.Offsets[:len(v.str.Offsets)-1]...), n.str.Offsets...)}
			v.text, v.str = joined.Value, &joined
		}
	case tSymbol:
		p.next()
		v.kind, v.text, v.str = vSymbol, t.text, t.str
	case tNumber:
		p.next()
		v.kind, v.text = vNumber, t.text
	case tIdent:
		p.next()
		switch t.text {
		case "nil":
			v.kind = vNil
		case "true", "false":
			v.kind, v.text = vBool, t.text
		default:
			v.kind, v.text = vOther, t.text
		}
	case tConst:
		v.kind = vOther
		v.text = p.rawExpression()
	case tPunct:
		switch t.text {
		case "[":
			p.next()
			v.kind, v.items = vArray, p.list("]")
		case "{":
			p.next()
			v.kind, v.pairs = vHash, p.hash()
		case "->":
			p.next()
			v.kind = vLambda
			p.expect("{")
			body := p.i
			depth := 1
			for depth > 0 {
				t := p.next()
				switch {
				case t.kind == tEOF:
					p.failf("lambda is never closed")
				case t.kind == tPunct && t.text == "{":
					depth++
				case t.kind == tPunct && t.text == "}":
					depth--
				}
			}
			inner := p.toks[body : p.i-1]
			if len(inner) == 1 && inner[0].kind == tString {
				v.items = []value{{kind: vString, text: inner[0].text, str: inner[0].str, off: inner[0].off}}
			}
			v.text = strings.TrimSpace(p.src[p.toks[body-1].end:p.toks[p.i-1].off])
		default:
			p.failf("unexpected %s", describe(t))
		}
	case tError:
		p.failf("%s", t.text)
	default:
		p.failf("expected a value, found %s", describe(t))
	}
	return v
}

// rawExpression skips a constant expression such as BigDecimal("1.5") or
// Float::INFINITY and returns its source text.
func (p *parser) rawExpression() string {
	start := p.tok().off
	p.next()
	for p.is(tPunct, "::") || p.is(tPunct, ".") {
		p.next()
		p.next()
	}
	if p.is(tPunct, "(") {
		p.next()
		p.arguments(")")
		p.expect(")")
	}
	return p.src[start:p.toks[p.i-1].end]
}

func (p *parser) hash() []pair {
	var out []pair
	p.skipNewlines()
	for !p.is(tPunct, "}") {
		k, ok := p.key()
		if !ok {
			kv := p.value()
			p.expect("=>")
			k = kv.text
		}
		out = append(out, pair{key: k, val: p.value()})
		p.skipNewlines()
		if p.is(tPunct, ",") {
			p.next()
			p.skipNewlines()
			continue
		}
		if !p.is(tPunct, "}") {
			p.failf("expected \"}\" or \",\", found %s", describe(p.tok()))
		}
	}
	p.next()
	return out
}

// strings returns the string or symbol items of an array value, or the value
// itself when it is a single string or symbol.
func (v value) strings() []string {
	switch v.kind {
	case vString, vSymbol:
		return []string{v.text}
	case vArray:
		var out []string
		for _, it := range v.items {
			out = append(out, it.text)
		}
		return out
	}
	return nil
}

// truthy is Ruby truthiness of a literal: everything but nil and false.
func (v value) truthy() bool {
	return !(v.kind == vNil || v.kind == vBool && v.text == "false")
}
