package scan

import (
	"strings"
	"testing"
)

// LowerWord lowers exactly as strings.ToLower does, whatever the word.
func TestLowerWordIsToLower(t *testing.T) {
	words := []string{"", "create", "CREATE", "Create", "cReAtE", "TABLE", "NOT", "NULL", "DEFAULT", "public", "Public",
		"SEARCH_PATH", "Ärger", "ÄRGER", "naïve", "x1$", "X1$", "İ", "K", "ß", "_", "A_B", "VARYING", "Zone", "PROCEDURE"}
	for w := range reservedWords {
		words = append(words, w, strings.ToUpper(w), strings.ToUpper(w[:1])+w[1:])
	}
	for _, w := range words {
		if got, want := LowerWord(w), strings.ToLower(w); got != want {
			t.Errorf("LowerWord(%q) = %q, want %q", w, got, want)
		}
	}
}

func TestBlockWord(t *testing.T) {
	for w, want := range map[string]string{"BEGIN": "begin", "Case": "case", "end": "end", "ProceDure": "procedure",
		"ending": "", "": "", "REPLACE": "replace", "OR": "or", "ORDER": "", "créate": ""} {
		if got := blockWord(w); got != want {
			t.Errorf("blockWord(%q) = %q, want %q", w, got, want)
		}
	}
}
