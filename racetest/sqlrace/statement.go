package sqlrace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/racetest"
)

// sqlPlaceholders are the templates a claim statement may use, in the order
// their bind parameters are numbered.
var sqlPlaceholders = []string{"{{key}}", "{{round}}", "{{uuid}}"}

// Statement is a claim statement whose templates have been turned into
// bind parameters: the values never become SQL text, so a key can hold any
// character without changing what the statement means.
type Statement struct {
	// Text is the statement with $1, $2, ... where the templates were.
	Text string
	// params lists, for each parameter number (index+1), which template it
	// stands for.
	params []string
}

// ParseStatement rewrites each {{key}}, {{round}} and {{uuid}} into a
// bind parameter; every occurrence of one template shares one parameter.
// It reads the statement as PostgreSQL's lexer does: comments (-- and
// nested /* */), string literals ('...', E'...' with backslash escapes,
// $$...$$ and $tag$...$tag$) and quoted identifiers ("...") are tokens of
// their own, and neither a quote nor a $n inside them means anything. A
// template written as a whole string literal ('{{key}}', $${{key}}$$)
// becomes the parameter; one inside a longer literal is refused, because a
// parameter cannot live inside a literal, and so is one inside a quoted
// identifier, because a parameter cannot stand for a name. A template in a
// comment stays as it is. The statement must not use $n itself.
func ParseStatement(text string) (Statement, error) {
	if strings.TrimSpace(text) == "" {
		return Statement{}, fmt.Errorf("the claim statement is empty")
	}
	var st Statement
	number := map[string]int{}
	var b strings.Builder
	for i := 0; i < len(text); {
		if n := placeholderAt(text, i); n != "" {
			b.WriteString(st.param(number, n))
			i += len(n)
			continue
		}
		tok, err := scanToken(text, i)
		if err != nil {
			return Statement{}, err
		}
		inner := text[tok.innerStart:tok.innerEnd]
		switch tok.kind {
		case literalToken:
			if n := placeholderAt(inner, 0); n != "" && len(n) == len(inner) {
				b.WriteString(st.param(number, n))
			} else if n := firstPlaceholder(inner); n != "" {
				return Statement{}, fmt.Errorf("%s inside the %s at offset %d: a bind parameter cannot live inside a literal; "+
					"write it outside the quotes, e.g. 'prefix-' || %s", n, tok.what, i, n)
			} else {
				b.WriteString(text[i:tok.end])
			}
		case identToken:
			if n := firstPlaceholder(inner); n != "" {
				return Statement{}, fmt.Errorf("%s inside the quoted identifier at offset %d: a bind parameter stands for a value, never for a name", n, i)
			}
			b.WriteString(text[i:tok.end])
		case paramToken:
			return Statement{}, fmt.Errorf("the statement uses a bind parameter at offset %d; use {{key}}, {{round}} or {{uuid}} instead", i)
		default: // a comment or any other byte, kept as it is
			b.WriteString(text[i:tok.end])
		}
		i = tok.end
	}
	st.Text = b.String()
	return st, nil
}

// tokenKind is what scanToken found.
type tokenKind int

const (
	otherToken   tokenKind = iota // one byte of anything else
	commentToken                  // -- to the line end, or /* */ (nested)
	literalToken                  // '...', E'...', $$...$$, $tag$...$tag$
	identToken                    // "..."
	paramToken                    // $1, $2, ...
)

// token is one token of a statement: text[start:end], with the text
// between its quotes at innerStart:innerEnd.
type token struct {
	kind                 tokenKind
	end                  int
	innerStart, innerEnd int
	what                 string // the literal's kind, for errors
}

// scanToken reads the token that starts at i. Only the tokens inside which
// a quote, a $ or a template means something else are told apart; any
// other byte is a token of its own.
func scanToken(text string, i int) (token, error) {
	c := text[i]
	next := byte(0)
	if i+1 < len(text) {
		next = text[i+1]
	}
	// Inside an identifier (foo$1, name$tag$), E, $ and digits are part
	// of the name.
	inWord := i > 0 && isIdentChar(text[i-1])
	switch {
	case c == '-' && next == '-':
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			return token{kind: commentToken, end: len(text)}, nil
		}
		return token{kind: commentToken, end: i + end}, nil
	case c == '/' && next == '*':
		end, ok := blockCommentEnd(text, i)
		if !ok {
			return token{}, fmt.Errorf("the comment at offset %d is not closed", i)
		}
		return token{kind: commentToken, end: end}, nil
	case c == '\'':
		return quoted(text, i, i, '\'', false, literalToken, "string literal")
	case (c == 'E' || c == 'e') && next == '\'' && !inWord:
		return quoted(text, i, i+1, '\'', true, literalToken, "string literal")
	case c == '"':
		return quoted(text, i, i, '"', false, identToken, "quoted identifier")
	case c == '$' && !inWord:
		if tag, ok := dollarTag(text, i); ok {
			body := i + len(tag)
			closeAt := strings.Index(text[body:], tag)
			if closeAt < 0 {
				return token{}, fmt.Errorf("the dollar-quoted string at offset %d is not closed", i)
			}
			return token{kind: literalToken, end: body + closeAt + len(tag), innerStart: body, innerEnd: body + closeAt, what: "dollar-quoted string"}, nil
		}
		if next >= '0' && next <= '9' {
			return token{kind: paramToken, end: i + 2}, nil
		}
	}
	return token{kind: otherToken, end: i + 1}, nil
}

// quoted reads the quoted token whose opening quote is at open (start is
// where the token begins, before an E prefix). A doubled quote is a quote
// inside it; with escapes, so is a backslash-escaped one (E'...').
func quoted(text string, start, open int, quote byte, escapes bool, kind tokenKind, what string) (token, error) {
	for j := open + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			if escapes {
				j++
			}
		case quote:
			if j+1 < len(text) && text[j+1] == quote {
				j++
				continue
			}
			return token{kind: kind, end: j + 1, innerStart: open + 1, innerEnd: j, what: what}, nil
		}
	}
	return token{}, fmt.Errorf("the %s at offset %d is not closed", what, start)
}

// dollarTag returns the opening tag of a dollar-quoted string at i ("$$",
// "$body$"), whose tag follows the rules of an identifier without a $.
func dollarTag(text string, i int) (string, bool) {
	j := i + 1
	if j < len(text) && isIdentStart(text[j]) {
		for j < len(text) && isIdentChar(text[j]) && text[j] != '$' {
			j++
		}
	}
	if j < len(text) && text[j] == '$' {
		return text[i : j+1], true
	}
	return "", false
}

// blockCommentEnd returns the offset after the */ that closes the comment
// at start, counting nested comments as PostgreSQL does.
func blockCommentEnd(text string, start int) (int, bool) {
	depth := 0
	for i := start; i+1 < len(text); i++ {
		switch {
		case text[i] == '/' && text[i+1] == '*':
			depth++
			i++
		case text[i] == '*' && text[i+1] == '/':
			depth--
			i++
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// param returns the placeholder text for template n, numbering it on first use.
func (st *Statement) param(number map[string]int, n string) string {
	if _, ok := number[n]; !ok {
		st.params = append(st.params, n)
		number[n] = len(st.params)
	}
	return "$" + strconv.Itoa(number[n])
}

// Args are the bind values of one round, in parameter order.
func (st Statement) Args(v racetest.RoundValues) []any {
	args := make([]any, len(st.params))
	for i, n := range st.params {
		args[i] = racetest.Template(n).Render(v)
	}
	return args
}

// UsesKey reports whether the statement has a fresh value each round, which
// --commit needs: otherwise the first round's row refuses every later round.
func (st Statement) UsesKey() bool {
	for _, n := range st.params {
		if n == "{{key}}" || n == "{{uuid}}" {
			return true
		}
	}
	return false
}

func placeholderAt(s string, i int) string {
	for _, n := range sqlPlaceholders {
		if strings.HasPrefix(s[i:], n) {
			return n
		}
	}
	return ""
}

func firstPlaceholder(s string) string {
	for _, n := range sqlPlaceholders {
		if strings.Contains(s, n) {
			return n
		}
	}
	return ""
}

// isIdentStart and isIdentChar are PostgreSQL's identifier bytes: letters,
// _, any byte of a multi-byte character, and after the first, digits and $.
func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}
