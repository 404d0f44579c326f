package scan

import (
	"strings"
	"text/template/parse"
)

// findPlaceholders walks the SQL text the way the runners see it: Go
// template actions and Flyway placeholders are filled anywhere outside
// comments (in strings, quoted identifiers and dollar-quoted bodies too,
// since the runner fills the whole file before the server sees it), psql
// variables only in code, never inside brackets (array slices) or after
// another colon (casts). Text that only looks like a placeholder ({{1,2}}
// in an array literal, {{name}} in a string) is left alone.
func findPlaceholders(src string, vars Vars) []placeholder {
	if !strings.Contains(src, "{{") && !strings.Contains(src, "${") && !mayHavePsqlVar(src) {
		return nil // most files: nothing to walk
	}
	s := &placeholderScanner{src: src, vars: vars}
	s.run()
	return s.found
}

// mayHavePsqlVar is a quick look for a colon that could start a psql
// variable: not part of "::" and followed by a name or a quote.
func mayHavePsqlVar(src string) bool {
	for i := 0; i < len(src); {
		k := strings.IndexByte(src[i:], ':')
		if k < 0 || i+k+1 >= len(src) {
			return false
		}
		i += k + 1
		if c := src[i]; c == ':' {
			i++ // a cast
		} else if IsIdentStart(c) || c == '\'' || c == '"' {
			return true
		}
	}
	return false
}

// maxActionLen bounds how far a "{{" looks for its "}}", so that stray
// braces in a large dump cost nothing.
const maxActionLen = 2000

type placeholderScanner struct {
	src     string
	vars    Vars
	found   []placeholder
	bracket int // depth of [ ] in code
}

// codeBytes are the bytes at which something can start in code; the scan
// skips the others.
var codeBytes = byteSet("-/{$'\"[]:")

// copyBytes add the start of COPY, for text that holds COPY data (a line
// "\." ends it).
var copyBytes = byteSet("-/{$'\"[]:cC")

func byteSet(chars string) *[256]bool {
	var set [256]bool
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	return &set
}

func (s *placeholderScanner) run() {
	src := s.src
	set := codeBytes
	if strings.Contains(src, "\n\\.") {
		set = copyBytes
	}
	for i := 0; i < len(src); {
		for i < len(src) && !set[src[i]] {
			i++
		}
		if i == len(src) {
			return
		}
		c := src[i]
		next := byte(0)
		if i+1 < len(src) {
			next = src[i+1]
		}
		inWord := i > 0 && IsIdentChar(src[i-1])
		switch {
		case c == '-' && next == '-':
			if e := strings.IndexByte(src[i:], '\n'); e >= 0 {
				i += e + 1
			} else {
				i = len(src)
			}
		case c == '/' && next == '*':
			i, _ = BlockCommentEnd(src, i)
		case c == '{' && next == '{':
			i = s.goAction(i, inCode)
		case c == '$' && next == '{':
			i = s.flyway(i, inCode)
		case c == '$' && !inWord:
			if tag := DollarTag(src, i); tag != "" {
				i = s.dollarBody(i, tag)
			} else {
				i++
			}
		case c == '\'':
			// E'...' takes backslash escapes.
			escapes := i > 0 && (src[i-1] == 'e' || src[i-1] == 'E') && (i < 2 || !IsIdentChar(src[i-2]))
			i = s.quoted(i, '\'', inString, escapes)
		case c == '"':
			i = s.quoted(i, '"', inQuotedIdent, false)
		case c == '[':
			s.bracket++
			i++
		case c == ']':
			if s.bracket > 0 {
				s.bracket--
			}
			i++
		case c == ':':
			i = s.colon(i)
		case (c == 'c' || c == 'C') && !inWord && i+4 <= len(src) && strings.EqualFold(src[i:i+4], "copy") &&
			(i+4 == len(src) || !IsIdentChar(src[i+4])):
			i = copyDataEnd(src, i, i+4)
		default:
			i++
		}
	}
}

// copyDataEnd returns, for a COPY ... FROM stdin statement at start, the
// offset after its data (which holds rows, not SQL), or wordEnd for any
// other COPY.
func copyDataEnd(src string, start, wordEnd int) int {
	semi := strings.IndexByte(src[start:min(len(src), start+maxActionLen)], ';')
	if semi < 0 || !copyFromStdin.MatchString(src[start:start+semi]) {
		return wordEnd
	}
	for i := start + semi; ; {
		nl := strings.IndexByte(src[i:], '\n')
		if nl < 0 {
			return len(src)
		}
		i += nl + 1
		if line, _, _ := strings.Cut(src[i:], "\n"); strings.TrimRight(line, "\r") == `\.` {
			return i + len(line)
		}
	}
}

// quoted walks a string or quoted identifier from its opening quote and
// returns the offset after its closing quote; placeholders inside it are
// found as it goes.
func (s *placeholderScanner) quoted(start int, quote byte, ctx sqlContext, escapes bool) int {
	src := s.src
	for j := start + 1; j < len(src); {
		switch c := src[j]; {
		case escapes && c == '\\':
			j += 2
		case c == quote:
			if j+1 < len(src) && src[j+1] == quote {
				j += 2
				continue
			}
			return j + 1
		case c == '{' && j+1 < len(src) && src[j+1] == '{':
			j = s.goAction(j, ctx)
		case c == '$' && j+1 < len(src) && src[j+1] == '{':
			j = s.flyway(j, ctx)
		default:
			j++
		}
	}
	return len(src) // unterminated: the splitter reports it
}

// dollarBody walks a dollar-quoted body and returns the offset after its
// closing tag.
func (s *placeholderScanner) dollarBody(start int, tag string) int {
	src := s.src
	for j := start + len(tag); j < len(src); {
		switch {
		case strings.HasPrefix(src[j:], tag):
			return j + len(tag)
		case src[j] == '{' && j+1 < len(src) && src[j+1] == '{':
			j = s.goAction(j, inDollarQuote)
		case src[j] == '$' && j+1 < len(src) && src[j+1] == '{':
			j = s.flyway(j, inDollarQuote)
		default:
			j++
		}
	}
	return len(src)
}

// goAction records the Go template action at start and returns the offset
// after it, or start+1 when the braces are not a template action.
func (s *placeholderScanner) goAction(start int, ctx sqlContext) int {
	end := goActionEnd(s.src, start)
	if end < 0 {
		return start + 1
	}
	text := s.src[start:end]
	p := placeholder{start: start, end: end, kind: goAction, ctx: ctx, keyword: goKeyword(text)}
	if goControlOpeners[p.keyword] || goControlWords[p.keyword] {
		s.found = append(s.found, p)
		return end
	}
	t := parse.New("placeholder")
	t.Mode = parse.SkipFuncCheck | parse.ParseComments
	if _, err := t.Parse(text, "{{", "}}", map[string]*parse.Tree{}); err != nil || t.Root == nil || len(t.Root.Nodes) != 1 {
		return start + 1
	}
	p.tree = t
	if !isComment(t) {
		keys := dataKeys(t)
		if len(keys) == 0 {
			return start + 1 // reads no value: {{x}} in a string is not ours
		}
		p.name = keys[0]
	}
	s.found = append(s.found, p)
	return end
}

// goActionEnd returns the offset after the "}}" closing the action at
// start, skipping Go strings and comments inside it, or -1.
func goActionEnd(src string, start int) int {
	limit := min(len(src), start+maxActionLen)
	for j := start + 2; j < limit; {
		switch src[j] {
		case '}':
			if j+1 < len(src) && src[j+1] == '}' {
				return j + 2
			}
			j++
		case '"':
			j++
			for j < limit && src[j] != '"' && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j++
		case '`':
			e := strings.IndexByte(src[j+1:limit], '`')
			if e < 0 {
				return -1
			}
			j += e + 2
		case '/':
			if j+1 < len(src) && src[j+1] == '*' {
				e := strings.Index(src[j+2:limit], "*/")
				if e < 0 {
					return -1
				}
				j += e + 4
				continue
			}
			j++
		default:
			j++
		}
	}
	return -1
}

// goKeyword is the first word of an action when it steers the template
// (if, range, else, end ...), or "".
func goKeyword(text string) string {
	t := strings.TrimPrefix(text, "{{")
	if strings.HasPrefix(t, "- ") {
		t = t[1:]
	}
	t = strings.TrimLeft(t, " \t\r\n")
	end := 0
	for end < len(t) && t[end] >= 'a' && t[end] <= 'z' {
		end++
	}
	if end < len(t) && IsIdentChar(t[end]) {
		return ""
	}
	if w := t[:end]; goControlOpeners[w] || goControlWords[w] {
		return w
	}
	return ""
}

func isComment(t *parse.Tree) bool {
	return len(t.Root.Nodes) == 1 && t.Root.Nodes[0].Type() == parse.NodeComment
}

// dataKeys are the names of the values an action reads: .Namespace,
// .Options.Namespace and index .Options "Namespace" all read Namespace.
func dataKeys(t *parse.Tree) []string {
	var keys []string
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.ActionNode:
			walk(n.Pipe)
		case *parse.PipeNode:
			if n == nil {
				return
			}
			for _, c := range n.Cmds {
				walk(c)
			}
		case *parse.CommandNode:
			if id, ok := n.Args[0].(*parse.IdentifierNode); ok && id.Ident == "index" && len(n.Args) >= 3 && isOptions(n.Args[1]) {
				if str, ok := n.Args[2].(*parse.StringNode); ok {
					keys = append(keys, str.Text)
					return
				}
			}
			for _, a := range n.Args {
				walk(a)
			}
		case *parse.FieldNode:
			keys = append(keys, fieldKey(n.Ident))
		case *parse.VariableNode:
			if len(n.Ident) > 1 && n.Ident[0] == "$" {
				keys = append(keys, fieldKey(n.Ident[1:]))
			}
		case *parse.ChainNode:
			walk(n.Node)
		}
	}
	walk(t.Root)
	return keys
}

// isOptions reports whether n is .Options, $.Options or the dot itself,
// the maps index reads a value's name from.
func isOptions(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.FieldNode:
		return len(n.Ident) == 1 && n.Ident[0] == "Options"
	case *parse.VariableNode:
		return len(n.Ident) == 2 && n.Ident[0] == "$" && n.Ident[1] == "Options"
	case *parse.DotNode:
		return true
	}
	return false
}

// fieldKey is the value a field chain names: .Options.Namespace names
// Namespace, .Namespace too.
func fieldKey(ident []string) string {
	if len(ident) > 1 && ident[0] == "Options" {
		return ident[1]
	}
	return ident[0]
}

// flyway records a ${name} placeholder and returns the offset after it.
// In a dollar-quoted body, where ${x} is as likely a JavaScript template
// literal of a PL/v8 function, only a name with a value is filled.
func (s *placeholderScanner) flyway(start int, ctx sqlContext) int {
	e := strings.IndexByte(s.src[start+2:min(len(s.src), start+2+maxActionLen)], '}')
	if e <= 0 {
		return start + 1
	}
	name := s.src[start+2 : start+2+e]
	for i := 0; i < len(name); i++ {
		if c := name[i]; !IsIdentChar(c) && c != '.' && c != ':' && c != '-' || c == '$' {
			return start + 1
		}
	}
	end := start + 2 + e + 1
	if ctx == inDollarQuote {
		if _, ok := s.vars[name]; !ok {
			return end
		}
	}
	s.found = append(s.found, placeholder{start: start, end: end, kind: flywayVar, ctx: ctx, name: name})
	return end
}

// colon records a psql variable (:name, :'name', :"name") at i, unless the
// colon belongs to a cast (::), an array slice (a[1:n]) or follows a name
// (a label, a named argument); it returns the offset after what it read.
func (s *placeholderScanner) colon(i int) int {
	src := s.src
	if i+1 >= len(src) || s.bracket > 0 {
		return i + 1
	}
	next := src[i+1]
	if next == ':' {
		return i + 2
	}
	if i > 0 {
		if prev := src[i-1]; IsIdentChar(prev) || prev == ']' || prev == ')' || prev == ':' || prev == '[' {
			return i + 1
		}
	}
	nameStart := i + 1
	kind := psqlVar
	if next == '\'' || next == '"' {
		nameStart++
		kind = psqlLiteral
		if next == '"' {
			kind = psqlIdent
		}
	}
	end := nameStart
	for end < len(src) && IsIdentChar(src[end]) && src[end] != '$' {
		end++
	}
	if end == nameStart || !IsIdentStart(src[nameStart]) {
		return i + 1
	}
	name := src[nameStart:end]
	if kind != psqlVar {
		if end >= len(src) || src[end] != next {
			return i + 1
		}
		end++
	}
	s.found = append(s.found, placeholder{start: i, end: end, kind: kind, ctx: inCode, name: name})
	return end
}
