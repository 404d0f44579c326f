// Package suggest finds the word a user probably meant when they typed one
// nobody defined: a misspelt command, flag or rule id. Every "did you mean"
// in idemcheck's messages comes from here, so they agree on what is close.
package suggest

import (
	"fmt"
	"strings"
)

// Closest returns the candidate nearest to word, or "" when none is near
// enough to be a likely typo. Near enough is an edit distance (insertions,
// deletions, substitutions and swaps of two neighbours) of at most a third
// of the word's length, and at least 1; a candidate that starts with the
// word (an abbreviation) counts too. Ties go to the earlier candidate, so
// the caller's order decides.
func Closest(word string, candidates []string) string {
	w := strings.ToLower(word)
	if w == "" {
		return ""
	}
	limit := max(1, len([]rune(w))/3)
	best, bestDist := "", limit+1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == w {
			return c
		}
		d := distance(w, lc)
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	if best != "" {
		return best
	}
	if len(w) >= 3 {
		for _, c := range candidates {
			if strings.HasPrefix(strings.ToLower(c), w) {
				return c
			}
		}
	}
	return ""
}

// DidYouMean is ` (did you mean "lint"?)` for the closest candidate, or ""
// when there is none, ready to be appended to a message.
func DidYouMean(word string, candidates []string) string {
	c := Closest(word, candidates)
	if c == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", c)
}

// distance is the optimal string alignment distance between a and b:
// Levenshtein's, with a swap of two neighbouring characters counted as one
// edit, since that is the commonest typo.
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// prev2, prev and cur are three rows of the table.
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}
