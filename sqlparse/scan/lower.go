package scan

import "strings"

// LowerWord is w lower-cased, without allocating for the words a dump
// writes most: a word with no upper-case letter is returned as it is (a
// substring of the caller's text: do not keep it), and an upper-case
// keyword (CREATE, TABLE, NOT, NULL, ...) as the keyword's own string. Any
// other word goes through strings.ToLower. The split, the prefilter and
// quickParse read every word of a file with it.
func LowerWord(w string) string {
	upper := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 {
			return strings.ToLower(w)
		}
		if c >= 'A' && c <= 'Z' {
			upper = true
		}
	}
	if !upper {
		return w
	}
	if k, ok := upperKeywords[w]; ok {
		return k
	}
	return strings.ToLower(w)
}

// upperKeywords maps the upper-case spelling of every reserved word, and
// of the unreserved keywords the prefilter and quickParse read, to its
// lower-case string.
var upperKeywords = func() map[string]string {
	m := map[string]string{}
	add := func(w string) { m[strings.ToUpper(w)] = w }
	for w := range reservedWords {
		add(w)
	}
	for _, w := range strings.Fields(`add alter attach begin by cascade comment commit concurrently constraint copy cycle data
		database delete detach disable drop enable exists extension function grant if increment index inherits insert key
		maxvalue minvalue no none nothing owned owner partition policy precision procedure publication range references
		rename replace restrict revoke role rule schema search_path security sequence set start statement statement_timeout
		tablespace temp temporary time trigger truncate type update using valid varying view with without zone`) {
		add(w)
	}
	return m
}()
