package sqlrace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
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
// comment stays as it is. The statement must not use $n itself. The tokens
// are read by sqlparse/scan, the pure-Go reader that splits migrations.
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
		tok, err := scan.NextToken(text, i)
		if err != nil {
			return Statement{}, err
		}
		inner := text[tok.InnerStart:tok.InnerEnd]
		switch tok.Kind {
		case scan.LiteralToken:
			if n := placeholderAt(inner, 0); n != "" && len(n) == len(inner) {
				b.WriteString(st.param(number, n))
			} else if n := firstPlaceholder(inner); n != "" {
				return Statement{}, fmt.Errorf("%s inside the %s at offset %d: a bind parameter cannot live inside a literal; "+
					"write it outside the quotes, e.g. 'prefix-' || %s", n, tok.What, i, n)
			} else {
				b.WriteString(text[i:tok.End])
			}
		case scan.IdentToken:
			if n := firstPlaceholder(inner); n != "" {
				return Statement{}, fmt.Errorf("%s inside the quoted identifier at offset %d: a bind parameter stands for a value, never for a name", n, i)
			}
			b.WriteString(text[i:tok.End])
		case scan.ParamToken:
			return Statement{}, fmt.Errorf("the statement uses a bind parameter at offset %d; use {{key}}, {{round}} or {{uuid}} instead", i)
		default: // a comment or any other byte, kept as it is
			b.WriteString(text[i:tok.End])
		}
		i = tok.End
	}
	st.Text = b.String()
	return st, nil
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
