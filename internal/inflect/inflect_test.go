package inflect

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// words are table names of the kinds real schemas have: the suffix rules,
// the irregular and uncountable words, compound names, and the ones the
// library behind this package gets wrong on its own.
var words = []string{
	"users", "categories", "addresses", "batches", "boxes", "children", "grandchildren", "people", "salespeople",
	"women", "statuses", "order_statuses", "aliases", "wolves", "knives", "product_drives", "objectives",
	"archives", "movies", "series", "news", "sheep", "user_species", "media", "analyses", "diagnoses", "heroes",
	"shoes", "buses", "mice", "indices", "matrices", "quizzes", "databases", "oxen", "axes", "crises", "octopi",
	"zombies", "moves", "business", "businesses", "sexes", "account_entries", "data", "metadata", "criteria",
	"taxes", "viruses", "cookies", "caches", "invoices", "policies", "companies", "lessons", "memberships",
	"taggings", "settings", "photos", "potatoes", "leaves", "lives", "halves", "campuses", "processes",
	"bonuses", "equipment", "information", "money", "fish", "police", "people_groups", "sales_people",
	"merge_requests", "identities", "activities", "inventories", "analyses_results", "tag_versions",
	"plantings", "harvests", "seeds", "crops", "gardens", "members", "feedbacks", "alerts", "statuses_logs",
}

// TestMatchesActiveSupport holds the package to ActiveSupport's own answers
// on words, both ways: what singularize gives for each table name, and what
// pluralize gives back for that. The answers are ActiveSupport 6.1's
// (Debian's ruby-activesupport), asked in one Ruby run.
func TestMatchesActiveSupport(t *testing.T) {
	const ruby = "/usr/bin/ruby"
	script := `require "active_support"; require "active_support/core_ext/string"
STDIN.each_line { |w| w = w.strip; s = w.singularize; puts [w, s, s.pluralize].join("\t") }`
	cmd := exec.Command(ruby, "-e", script)
	cmd.Stdin = strings.NewReader(strings.Join(words, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		msg := "ActiveSupport (Debian's ruby-activesupport, " + ruby + ") could not be run: " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI=true, so this is a failure, not a skip")
		}
		t.Skip(msg)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(words) {
		t.Fatalf("ActiveSupport answered %d lines for %d words", len(lines), len(words))
	}
	for _, line := range lines {
		f := strings.Split(line, "\t")
		word, singular, plural := f[0], f[1], f[2]
		if got := Singular(word); got != singular {
			t.Errorf("Singular(%q) = %q, ActiveSupport says %q", word, got, singular)
		}
		if got := Plural(singular); got != plural {
			t.Errorf("Plural(%q) = %q, ActiveSupport says %q", singular, got, plural)
		}
	}
}

// TestKnownAnswers pins ActiveSupport 6.1's answers where the library on its
// own differs, so that the corrections are tested without Ruby too.
func TestKnownAnswers(t *testing.T) {
	for in, want := range map[string]string{
		"zombies": "zombie", "cookies": "cooky", "user_species": "user_specy", "people": "person",
		"statuses": "status", "data": "datum", "media": "medium", "children": "child", "equipment": "equipment",
	} {
		if got := Singular(in); got != want {
			t.Errorf("Singular(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"person": "people", "status": "statuses", "datum": "data", "zombie": "zombies", "order_status": "order_statuses",
		"salesperson": "salespeople", "RuntimeEnvironment": "RuntimeEnvironments", "company": "companies",
	} {
		if got := Plural(in); got != want {
			t.Errorf("Plural(%q) = %q, want %q", in, got, want)
		}
	}
}
