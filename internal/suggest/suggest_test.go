package suggest

import "testing"

func TestClosest(t *testing.T) {
	commands := []string{"lint", "inspect", "race", "rules", "version", "docs"}
	rules := []string{"nullable-key", "optional-unique", "unused-ignore", "on-conflict-hole"}
	cases := []struct {
		word       string
		candidates []string
		want       string
	}{
		{"lnt", commands, "lint"},
		{"lint", commands, "lint"},
		{"LINT", commands, "lint"},
		{"insepct", commands, "inspect"}, // a swap is one edit
		{"rase", commands, "race"},
		{"htp", []string{"http", "sql", "demo"}, "http"},
		{"nulable-key", rules, "nullable-key"},
		{"nullable-keys", rules, "nullable-key"},
		{"optional", rules, "optional-unique"}, // an abbreviation
		{"deploy", commands, ""},
		{"x", commands, ""},
		{"", commands, ""},
	}
	for _, c := range cases {
		if got := Closest(c.word, c.candidates); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	if got := DidYouMean("formt", []string{"format", "fail-on"}); got != ` (did you mean "format"?)` {
		t.Errorf("got %q", got)
	}
	if got := DidYouMean("zzzzzz", []string{"format"}); got != "" {
		t.Errorf("got %q for a word near nothing", got)
	}
}
