// Package prose holds the few ways audit's messages and fixes put SQL
// objects into English: a list of words, and a key part as a reader names
// it. Messages and fix titles share it so that they name things alike.
package prose

import (
	"strings"

	"github.com/idemcheck/idemcheck/catalog"
)

// List joins words as "a", "a and b", "a, b and c", with last ("and",
// "or") before the last word.
func List(words []string, last string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + last + " " + words[len(words)-1]
}

// Part is a key part as prose names it: the column, or the expression
// without the parentheses CREATE INDEX needs.
func Part(p catalog.IndexPart) string {
	if p.Column != "" {
		return p.Column
	}
	if p.Expr == nil {
		return "?"
	}
	return p.Expr.String()
}

// Parts names each key part as Part does.
func Parts(parts []catalog.IndexPart) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = Part(p)
	}
	return out
}
