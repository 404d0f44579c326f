package scan

import (
	"fmt"
	"strings"
)

// The readers of the tokens inside which a quote, a semicolon, a $ or a
// template means something else: comments, quoted strings and
// identifiers, and dollar quotes. The splitter reads statements with them,
// and NextToken serves packages that must find tokens in one statement.

// BlockCommentEnd returns the offset after the "*/" closing the comment at
// start, counting nested comments as PostgreSQL does.
func BlockCommentEnd(src string, start int) (int, bool) {
	depth := 0
	for i := start; i+1 < len(src); i++ {
		switch {
		case src[i] == '/' && src[i+1] == '*':
			depth++
			i++
		case src[i] == '*' && src[i+1] == '/':
			depth--
			i++
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return len(src), false
}

// DollarTag returns the opening tag of a dollar quote at start ($$ or
// $tag$), or "" when the "$" starts none (a parameter $1, a lone $).
func DollarTag(src string, start int) string {
	j := start + 1
	if j < len(src) && IsIdentStart(src[j]) {
		for j < len(src) && IsIdentChar(src[j]) && src[j] != '$' {
			j++
		}
	}
	if j >= len(src) || src[j] != '$' {
		return ""
	}
	return src[start : j+1]
}

// quotedEnd returns the offset after the quote that closes the quoted
// string or identifier whose opening quote is at open. A doubled quote is a
// quote inside it; with escapes (E'...'), so is a backslash-escaped one.
func quotedEnd(src string, open int, quote byte, escapes bool) (int, bool) {
	for i := open + 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			if escapes {
				i++
			}
		case quote:
			if i+1 < len(src) && src[i+1] == quote {
				i++
				continue
			}
			return i + 1, true
		}
	}
	return len(src), false
}

// TokenKind is what NextToken found.
type TokenKind int

const (
	OtherToken   TokenKind = iota // one byte of anything else
	CommentToken                  // -- to the line end, or /* */ (nested)
	LiteralToken                  // '...', E'...', $$...$$, $tag$...$tag$
	IdentToken                    // "..."
	ParamToken                    // $1, $2, ...
)

// Token is one token of a statement: text[start:End], with the text
// between its quotes at InnerStart:InnerEnd.
type Token struct {
	Kind                 TokenKind
	End                  int
	InnerStart, InnerEnd int
	What                 string // the literal's kind, for errors
}

// NextToken reads the token of text that starts at i, as PostgreSQL's
// lexer does. Only the tokens inside which a quote, a $ or a template means
// something else are told apart; any other byte is a token of its own. A
// comment, literal or quoted identifier that is not closed is an error
// naming its kind and offset.
func NextToken(text string, i int) (Token, error) {
	c := text[i]
	next := byte(0)
	if i+1 < len(text) {
		next = text[i+1]
	}
	// Inside an identifier (foo$1, name$tag$), E, $ and digits are part
	// of the name.
	inWord := i > 0 && IsIdentChar(text[i-1])
	switch {
	case c == '-' && next == '-':
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			return Token{Kind: CommentToken, End: len(text)}, nil
		}
		return Token{Kind: CommentToken, End: i + end}, nil
	case c == '/' && next == '*':
		end, ok := BlockCommentEnd(text, i)
		if !ok {
			return Token{}, fmt.Errorf("the comment at offset %d is not closed", i)
		}
		return Token{Kind: CommentToken, End: end}, nil
	case c == '\'':
		return quotedToken(text, i, i, '\'', false, LiteralToken, "string literal")
	case (c == 'E' || c == 'e') && next == '\'' && !inWord:
		return quotedToken(text, i, i+1, '\'', true, LiteralToken, "string literal")
	case c == '"':
		return quotedToken(text, i, i, '"', false, IdentToken, "quoted identifier")
	case c == '$' && !inWord:
		if tag := DollarTag(text, i); tag != "" {
			body := i + len(tag)
			closeAt := strings.Index(text[body:], tag)
			if closeAt < 0 {
				return Token{}, fmt.Errorf("the dollar-quoted string at offset %d is not closed", i)
			}
			return Token{Kind: LiteralToken, End: body + closeAt + len(tag), InnerStart: body, InnerEnd: body + closeAt, What: "dollar-quoted string"}, nil
		}
		if next >= '0' && next <= '9' {
			return Token{Kind: ParamToken, End: i + 2}, nil
		}
	}
	return Token{Kind: OtherToken, End: i + 1}, nil
}

// quotedToken reads the quoted token whose opening quote is at open (start
// is where the token begins, before an E prefix).
func quotedToken(text string, start, open int, quote byte, escapes bool, kind TokenKind, what string) (Token, error) {
	end, ok := quotedEnd(text, open, quote, escapes)
	if !ok {
		return Token{}, fmt.Errorf("the %s at offset %d is not closed", what, start)
	}
	return Token{Kind: kind, End: end, InnerStart: open + 1, InnerEnd: end - 1, What: what}, nil
}
