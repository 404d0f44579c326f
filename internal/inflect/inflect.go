// Package inflect is idemcheck's one English inflector: the plural and the
// singular of a word as Rails' ActiveSupport gives them with its default
// inflections (person and people, status and statuses, datum and data,
// the irregular and uncountable words). Rails names a model's table with
// it and infers the column of add_foreign_key with it; the rules read a
// reference column's stem against the schema's table names with it.
//
// The rules are github.com/jinzhu/inflection's (the inflector GORM names
// its tables with), which follow ActiveSupport's list. Where that library
// parts from ActiveSupport 6.1 it is corrected here (corrections), each case
// checked against ActiveSupport itself (inflect_test.go).
package inflect

import (
	"strings"
	"sync"

	"github.com/jinzhu/inflection"
)

// The library tries its rules, each a regular expression, in turn on every
// call; the rules ask for the same few hundred names (a schema's tables and
// their columns' stems) many times over, so each answer is kept (the key is a copy, so that it holds
// no statement's text).
var plurals, singulars sync.Map // word -> its form

// corrections are the words where the library parts from ActiveSupport
// 6.1, as suffix rules applied before it: its irregular "zombie" is
// misspelled ("mombie"), so "zombies" would singularize by the ies rule,
// and it has a rule for "cookies" that ActiveSupport lacks ("cookies" is
// "cooky" there, by ([^aeiouy]|qu)ies$). They are applied here rather than
// registered with the library, which compiles its whole rule set again for
// each rule added.
var corrections = []struct{ plural, singular string }{
	{"zombies", "zombie"},
	{"cookies", "cooky"},
}

// Plural is ActiveSupport's pluralize: "person" is "people", "status" is
// "statuses", "order_status" is "order_statuses". Only the last word of a
// compound name changes, as in Rails.
func Plural(s string) string {
	if s == "" {
		return s
	}
	if p, ok := plurals.Load(s); ok {
		return p.(string)
	}
	p := inflection.Plural(s)
	plurals.Store(strings.Clone(s), p)
	return p
}

// Singular is ActiveSupport's singularize: "people" is "person", "data" is
// "datum", "user_species" is "user_specy" (an uncountable word counts only
// as the whole name).
func Singular(s string) string {
	if s == "" {
		return s
	}
	if p, ok := singulars.Load(s); ok {
		return p.(string)
	}
	p := singular(s)
	singulars.Store(strings.Clone(s), p)
	return p
}

func singular(s string) string {
	lower := strings.ToLower(s)
	for _, c := range corrections {
		if strings.HasSuffix(lower, c.plural) {
			head := s[:len(s)-len(c.plural)]
			tail := s[len(s)-len(c.plural):]
			// Keep the case of the word's first letter (Zombies, zombies).
			return head + tail[:1] + c.singular[1:]
		}
	}
	return inflection.Singular(s)
}
