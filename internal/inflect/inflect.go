// Package inflect is idemcheck's one English inflector: the plural and the
// singular of a word as Rails' ActiveSupport gives them with its default
// inflections (person and people, status and statuses, datum and data,
// the irregular and uncountable words). Rails names a model's table with
// it and infers the column of add_foreign_key with it; the rules read a
// reference column's stem against the schema's table names with it.
//
// ActiveSupport states its English rules as regular expressions on the end
// of the word, tried from the last one defined to the first; the first that
// matches rewrites the word. Here each rule is a plain check of the word's
// end, lower-cased, in the same order, so that nothing is compiled when the
// program starts and a call costs a few comparisons. inflect_test.go holds
// both functions to ActiveSupport itself (Ruby's, on this machine) over
// thousands of real table and column names.
package inflect

import (
	"strings"
	"sync"
)

// Each answer is kept: the rules ask for the same few hundred names (a
// schema's tables and their columns' stems) many times over. The key is a
// copy, so that it holds no statement's text.
var plurals, singulars sync.Map // word -> its form

// Plural is ActiveSupport's pluralize: "person" is "people", "status" is
// "statuses", "order_status" is "order_statuses". Only the end of a
// compound name changes, as in Rails.
func Plural(s string) string { return inflected(&plurals, s, pluralRules) }

// Singular is ActiveSupport's singularize: "people" is "person", "data" is
// "datum", "user_species" is "user_specy" (an uncountable word counts only
// as a whole word at the end of the name).
func Singular(s string) string { return inflected(&singulars, s, singularRules) }

func inflected(cache *sync.Map, s string, rules []rule) string {
	if s == "" {
		return s
	}
	if p, ok := cache.Load(s); ok {
		return p.(string)
	}
	p := apply(s, rules)
	cache.Store(strings.Clone(s), p)
	return p
}

// A rule looks at the lower-cased word and, when it applies, says how much
// of the original word to keep and what to put after it.
type rule func(lower string) (keep int, add string, ok bool)

func apply(s string, rules []rule) string {
	lower := lowerASCII(s)
	if uncountable(lower) {
		return s
	}
	for _, r := range rules {
		if keep, add, ok := r(lower); ok {
			return s[:keep] + add
		}
	}
	return s
}

// lowerASCII lowers ASCII letters only, so that every byte offset of the
// result is the same offset in s (Ruby's /i on the rules' ASCII letters).
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// uncountables are ActiveSupport's words with one form; a name ending in
// one counts only where the word stands alone at the end (its regular
// expression is \bword\Z: "fish" and "big fish", not "user_species", since
// the underscore is a word character).
var uncountables = []string{"equipment", "information", "rice", "money", "species", "series", "fish", "sheep", "jeans", "police"}

func uncountable(lower string) bool {
	for _, w := range uncountables {
		if strings.HasSuffix(lower, w) {
			i := len(lower) - len(w)
			if i == 0 || !wordByte(lower[i-1]) {
				return true
			}
		}
	}
	return false
}

// wordByte is a byte of Ruby's \w.
func wordByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

// ends is the rule "one of the endings, replaced": the word ends with one
// of endings, whose first keep bytes stay (a regular expression's captured
// group) and whose rest becomes add.
func ends(keep int, add string, endings ...string) rule {
	return func(lower string) (int, string, bool) {
		for _, e := range endings {
			if strings.HasSuffix(lower, e) {
				return len(lower) - len(e) + keep, add, true
			}
		}
		return 0, "", false
	}
}

// whole is the rule for a word that must be all of the name (a regular
// expression anchored at both ends).
func whole(keep int, add string, words ...string) rule {
	return func(lower string) (int, string, bool) {
		for _, w := range words {
			if lower == w {
				return keep, add, true
			}
		}
		return 0, "", false
	}
}

// after is the rule "a byte that is (or is not) one of set, then ending":
// the byte stays and ending becomes add.
func after(set string, in bool, ending, add string) rule {
	return func(lower string) (int, string, bool) {
		n := len(lower) - len(ending)
		if n < 1 || !strings.HasSuffix(lower, ending) || strings.IndexByte(set, lower[n-1]) >= 0 != in {
			return 0, "", false
		}
		return n, add, true
	}
}

// consonantY is ([^aeiouy]|qu)y$ with y written as ending: the word's end
// after a consonant or "qu" becomes add.
func consonantY(ending, add string) rule {
	return func(lower string) (int, string, bool) {
		n := len(lower) - len(ending)
		if n < 1 || !strings.HasSuffix(lower, ending) {
			return 0, "", false
		}
		if strings.IndexByte("aeiouy", lower[n-1]) < 0 || strings.HasSuffix(lower[:n], "qu") {
			return n, add, true
		}
		return 0, "", false
	}
}

// irregular are ActiveSupport's irregular words, singular and plural; each
// pair shares its first letter, so its rules keep that letter's case.
var irregular = [][2]string{
	{"person", "people"}, {"man", "men"}, {"child", "children"},
	{"sex", "sexes"}, {"move", "moves"}, {"zombie", "zombies"},
}

// irregularRules are the four rules ActiveSupport makes of each irregular
// pair, the last pair first: either form at the end of the word becomes
// the form asked for.
func irregularRules(plural bool) []rule {
	var out []rule
	for i := len(irregular) - 1; i >= 0; i-- {
		s, p := irregular[i][0], irregular[i][1]
		want := s
		if plural {
			want = p
		}
		// ActiveSupport defines the singular form's rule before the
		// plural form's, so the plural form's is tried first.
		out = append(out, ends(1, want[1:], p), ends(1, want[1:], s))
	}
	return out
}

// pluralRules are ActiveSupport's plural rules, the last defined first.
var pluralRules = append(irregularRules(true),
	ends(4, "zes", "quiz"),
	whole(4, "", "oxen"),
	whole(2, "en", "ox"),
	whole(1, "ice", "mice", "lice"),
	whole(1, "ice", "mouse", "louse"),
	ends(4, "ices", "matrix", "matrex", "vertix", "vertex"),
	ends(3, "ices", "indix", "index"),
	ends(1, "es", "x"),
	ends(2, "es", "ch", "ss", "sh"),
	consonantY("y", "ies"),
	ends(4, "s", "hive"),
	func(lower string) (int, string, bool) { // (?:([^f])fe|([lr])f)$
		if n := len(lower) - 2; n >= 1 && strings.HasSuffix(lower, "fe") && lower[n-1] != 'f' {
			return n, "ves", true
		}
		if n := len(lower) - 1; n >= 1 && lower[n] == 'f' && (lower[n-1] == 'l' || lower[n-1] == 'r') {
			return n, "ves", true
		}
		return 0, "", false
	},
	ends(0, "ses", "sis"),
	after("ti", true, "a", "a"),
	after("ti", true, "um", "a"),
	ends(6, "oes", "buffalo"),
	ends(5, "oes", "tomato"),
	ends(2, "ses", "bus"),
	ends(5, "es", "alias"),
	ends(6, "es", "status"),
	ends(5, "i", "octopi"),
	ends(3, "i", "viri"),
	ends(5, "i", "octopus"),
	ends(3, "i", "virus"),
	whole(2, "es", "axis"),
	whole(4, "es", "testis"),
	ends(0, "s", "s"),
	ends(0, "s", ""),
)

// singularRules are ActiveSupport's singular rules, the last defined first.
var singularRules = append(irregularRules(false),
	ends(8, "", "databases"),
	ends(4, "", "quizzes"),
	ends(4, "ix", "matrices"),
	ends(4, "ex", "vertices"),
	ends(3, "ex", "indices"),
	func(lower string) (int, string, bool) { // ^(ox)en
		if strings.HasPrefix(lower, "oxen") {
			return 2, lower[4:], true // what follows is kept, lower-cased
		}
		return 0, "", false
	},
	ends(5, "", "aliases", "alias"),
	ends(6, "", "statuses", "status"),
	ends(5, "us", "octopus", "octopi"),
	ends(3, "us", "virus", "viri"),
	whole(1, "xis", "axis", "axes"),
	ends(4, "is", "crisis", "crises", "testis", "testes"),
	ends(4, "", "shoes"),
	ends(1, "", "oes"),
	ends(3, "", "buses", "bus"),
	whole(1, "ouse", "mice", "lice"),
	ends(1, "", "xes"),
	ends(2, "", "ches", "sses", "shes"),
	ends(1, "ovie", "movies"),
	ends(1, "eries", "series"),
	consonantY("ies", "y"),
	after("lr", true, "ves", "f"),
	ends(4, "", "tives"),
	ends(4, "", "hives"),
	after("f", false, "ves", "fe"),
	whole(5, "sis", "analysis", "analyses"),
	func(lower string) (int, string, bool) { // ((a)naly|(b)a|(d)iagno|(p)arenthe|(p)rogno|(s)ynop|(t)he)(sis|ses)$
		if !strings.HasSuffix(lower, "sis") && !strings.HasSuffix(lower, "ses") {
			return 0, "", false
		}
		n := len(lower) - 3
		for _, stem := range []string{"analy", "ba", "diagno", "parenthe", "progno", "synop", "the"} {
			if strings.HasSuffix(lower[:n], stem) {
				return n, "sis", true
			}
		}
		return 0, "", false
	},
	after("ti", true, "a", "um"),
	ends(1, "ews", "news"),
	ends(2, "", "ss"),
	ends(0, "", "s"),
)
