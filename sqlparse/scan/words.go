package scan

import (
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// QualifiedName reads a one- or more-part name the way the lexer does:
// quoted parts keep their case, unquoted parts fold ASCII to lower case,
// and every part is cut to 63 bytes.
func QualifiedName(text string) (parts []string, rest string, ok bool) {
	for {
		var part string
		switch {
		case text == "":
			return nil, "", false
		case text[0] == '"':
			end := 1
			var b strings.Builder
			for {
				q := strings.IndexByte(text[end:], '"')
				if q < 0 {
					return nil, "", false
				}
				b.WriteString(text[end : end+q])
				end += q + 1
				if end < len(text) && text[end] == '"' {
					b.WriteByte('"')
					end++
					continue
				}
				break
			}
			part, text = b.String(), text[end:]
			if part == "" {
				return nil, "", false
			}
		case isWordByte(text[0]):
			end := 1
			for end < len(text) && (isWordByte(text[end]) || text[end] >= '0' && text[end] <= '9' || text[end] == '$') {
				end++
			}
			part, text = asciiLower(text[:end]), text[end:]
		default:
			return nil, "", false
		}
		parts = append(parts, catalog.TruncateIdent(part))
		if text == "" || text[0] != '.' {
			return parts, text, true
		}
		text = text[1:]
	}
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// LeadingWords returns up to n leading keywords of text, lower-cased; it
// stops at the first token that is not a plain word. A word may be a
// substring of text (LowerWord): copy one before keeping it.
func LeadingWords(text string, n int) []string {
	var words []string
	i := 0
	for len(words) < n {
		for i < len(text) && IsSpace(text[i]) {
			i++
		}
		start := i
		for i < len(text) && isWordByte(text[i]) {
			i++
		}
		if i == start || (i < len(text) && !IsSpace(text[i]) && text[i] != ';' && text[i] != '(') {
			if i > start && len(words) < n {
				words = append(words, LowerWord(text[start:i]))
			}
			return words
		}
		words = append(words, LowerWord(text[start:i]))
	}
	return words
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}
