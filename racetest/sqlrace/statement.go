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
// bind parameter; every occurrence of one template shares one parameter. A
// template written as a whole string literal ('{{key}}') becomes the
// parameter; one inside a longer literal is refused, because a parameter
// cannot live inside a literal. The statement must not use $n itself.
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
		switch c := text[i]; {
		case c == '\'':
			end, inner, err := scanLiteral(text, i)
			if err != nil {
				return Statement{}, err
			}
			if n := placeholderAt(inner, 0); n != "" && len(n) == len(inner) {
				b.WriteString(st.param(number, n))
			} else if n := firstPlaceholder(inner); n != "" {
				return Statement{}, fmt.Errorf("%s inside the string literal at offset %d: a bind parameter cannot live inside a literal; "+
					"write it outside the quotes, e.g. 'prefix-' || %s", n, i, n)
			} else {
				b.WriteString(text[i:end])
			}
			i = end
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			b.WriteString(text[i : i+end])
			i += end
		case c == '$' && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' && (i == 0 || !isIdentByte(text[i-1])):
			return Statement{}, fmt.Errorf("the statement uses a bind parameter at offset %d; use {{key}}, {{round}} or {{uuid}} instead", i)
		default:
			b.WriteByte(c)
			i++
		}
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

// scanLiteral reads the single-quoted literal starting at i (a doubled quote is a quote
// inside it) and returns the offset after it and its text between the quotes.
func scanLiteral(s string, i int) (end int, inner string, err error) {
	for j := i + 1; j < len(s); j++ {
		if s[j] != '\'' {
			continue
		}
		if j+1 < len(s) && s[j+1] == '\'' {
			j++
			continue
		}
		return j + 1, s[i+1 : j], nil
	}
	return 0, "", fmt.Errorf("the string literal at offset %d is not closed", i)
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
