// Package inflect is idemcheck's one English inflector: the plural and the
// singular of a word as Rails' ActiveSupport gives them with its default
// inflections (person and people, status and statuses, datum and data,
// the irregular and uncountable words). Rails names a model's table with
// it and infers the column of add_foreign_key with it; the rules read a
// reference column's stem against the schema's table names with it.
//
// The rules are github.com/jinzhu/inflection's (the inflector GORM names
// its tables with), which follow ActiveSupport's list. Where that library
// parts from ActiveSupport 6.1 it is corrected here, each case checked
// against ActiveSupport itself (inflect_test.go): its irregular "zombie" is
// misspelled, and it adds a rule for "cookies" that ActiveSupport lacks.
package inflect

import "github.com/jinzhu/inflection"

func init() {
	// ActiveSupport: irregular("zombie", "zombies"); the library lists
	// "mombie".
	inflection.AddIrregular("zombie", "zombies")
	// ActiveSupport has no cookie rule: "cookies" singularizes by
	// ([^aeiouy]|qu)ies$ to "cooky".
	inflection.AddSingular("(c)ookies$", "${1}ooky")
}

// Plural is ActiveSupport's pluralize: "person" is "people", "status" is
// "statuses", "order_status" is "order_statuses". Only the last word of a
// compound name changes, as in Rails.
func Plural(s string) string {
	if s == "" {
		return s
	}
	return inflection.Plural(s)
}

// Singular is ActiveSupport's singularize: "people" is "person", "data" is
// "datum", "user_species" is "user_specy" (an uncountable word counts only
// as the whole name).
func Singular(s string) string {
	if s == "" {
		return s
	}
	return inflection.Singular(s)
}
