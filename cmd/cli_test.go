package cmd

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"
)

// TestVersionFlag: --version prints what the version command prints and
// exits 0; -v stays --verbose's.
func TestVersionFlag(t *testing.T) {
	r := run(t, "--version")
	assertCode(t, r, ExitOK)
	if v := run(t, "version"); r.stdout != v.stdout {
		t.Errorf("--version printed\n%s\nversion printed\n%s", r.stdout, v.stdout)
	}
	assertContains(t, "stdout", r.stdout, "idemcheck devel\n", "PostgreSQL grammar:")
	r = run(t, "-v")
	assertCode(t, r, ExitUsage)
}

// TestUnknownCommand: a misspelt command, at the top or under race, is a
// usage error with the command meant, and never help with exit 0.
func TestUnknownCommand(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"lnt", "x"}, `unknown command "lnt" for "idemcheck" (did you mean "lint"?)`},
		{[]string{"race", "htp", "http://127.0.0.1:1/"}, `unknown command "htp" for "idemcheck race" (did you mean "http"?)`},
		{[]string{"docs", "mna", "x"}, `unknown command "mna" for "idemcheck docs" (did you mean "man"?)`},
		{[]string{"deploy"}, `unknown command "deploy" for "idemcheck"; "idemcheck --help" lists the commands`},
		{[]string{"completion", "fsh"}, `unknown command "fsh" for "idemcheck completion" (did you mean "fish"?)`},
		{[]string{"help", "lnt"}, `unknown command "lnt" for "idemcheck" (did you mean "lint"?)`},
		{[]string{"help", "race", "htp"}, `unknown command "htp" for "idemcheck race" (did you mean "http"?)`},
	}
	for _, c := range cases {
		r := run(t, c.args...)
		assertCode(t, r, ExitUsage)
		assertContains(t, "stderr", r.stder, c.want)
		if r.stdout != "" {
			t.Errorf("%v printed on stdout:\n%s", c.args, r.stdout)
		}
	}
	// A group alone still shows its help, and so does help on a command.
	r := run(t, "race")
	assertCode(t, r, ExitOK)
	assertContains(t, "stdout", r.stdout, "Available Commands:", "http", "sql", "demo")
	r = run(t, "help", "race", "sql")
	assertCode(t, r, ExitOK)
	assertContains(t, "stdout", r.stdout, "Usage:\n  idemcheck race sql")
}

// TestUnknownFlag: a misspelt flag names the flag meant.
func TestUnknownFlag(t *testing.T) {
	path := writeFile(t, "schema.sql", cleanSQL)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"lint", "--formt", "json", path}, `lint: unknown flag --formt (did you mean --format?); "idemcheck lint --help" lists the flags`},
		{[]string{"lint", "--fail-on=eror", "--fial-on", "error", path}, "unknown flag --fial-on (did you mean --fail-on?)"},
		{[]string{"lint", "-format", "json", path}, "unknown shorthand flag -f in -format (did you mean --format?)"},
		{[]string{"race", "http", "--rounsd", "3", "http://127.0.0.1:1/"}, "race http: unknown flag --rounsd (did you mean --rounds?)"},
		{[]string{"race", "sql", "--n", "3", "SELECT 1"}, "race sql: unknown flag --n"},
		{[]string{"inspect", "--frobnicate"}, "inspect: unknown flag --frobnicate; "},
	}
	for _, c := range cases {
		r := run(t, c.args...)
		assertCode(t, r, ExitUsage)
		assertContains(t, "stderr", r.stder, c.want)
	}
}

// TestMissingArgumentNamed: a missing or extra argument is named, never
// counted in cobra's words.
func TestMissingArgumentNamed(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"race", "http"}, "race http needs the URL to race (for example: idemcheck race http"},
		{[]string{"race", "http", "http://a/", "http://b/"}, `race http takes one argument, the URL to race, got 2: "http://a/" "http://b/"`},
		{[]string{"docs", "man"}, "docs man needs the directory to write the man pages into"},
		{[]string{"inspect", "postgres://x@127.0.0.1/db"}, `inspect takes no arguments, got "postgres://x@127.0.0.1/db"; the database is named with --dsn`},
		{[]string{"rules", "nullable-key", "optional-unique"}, "rules takes at most one argument, a rule id, got 2"},
		{[]string{"version", "extra"}, `version takes no arguments, got "extra"`},
	}
	for _, c := range cases {
		r := run(t, c.args...)
		assertCode(t, r, ExitUsage)
		assertContains(t, "stderr", r.stder, c.want)
		assertLacks(t, "stderr", r.stder, "arg(s)")
	}
}

// TestUnknownRuleSuggests: a misspelt rule id, wherever it is given on the
// command line, names the rule meant.
func TestUnknownRuleSuggests(t *testing.T) {
	path := writeFile(t, "schema.sql", cleanSQL)
	for _, args := range [][]string{
		{"rules", "nulable-key"},
		{"lint", "--rule", "nulable-key", path},
		{"lint", "--disable", "nullable-keys", path},
		{"lint", "--severity", "nulable-key=info", path},
	} {
		r := run(t, args...)
		assertCode(t, r, ExitUsage)
		assertContains(t, "stderr", r.stder, `(did you mean "nullable-key"?)`)
	}
}

// walk calls f on c and every command below it (help apart, which is
// idemcheck's own but only shows the others' help).
func walk(c *cobra.Command, f func(*cobra.Command)) {
	if c.Name() == "help" {
		return
	}
	f(c)
	for _, sub := range c.Commands() {
		walk(sub, f)
	}
}

// TestEveryCommandHasExamples: every command's help has an Examples
// section, and no command is hidden.
func TestEveryCommandHasExamples(t *testing.T) {
	root := NewRoot(&Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	n := 0
	walk(root, func(c *cobra.Command) {
		n++
		if c.Hidden {
			t.Errorf("%s is hidden", c.CommandPath())
		}
		r := run(t, append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "idemcheck")), "--help")...)
		assertCode(t, r, ExitOK)
		if !strings.Contains(r.stdout, "\nExamples:\n  ") {
			t.Errorf("%s --help has no Examples section:\n%s", c.CommandPath(), r.stdout)
		}
	})
	if n < 17 {
		t.Errorf("walked %d commands, want every one of idemcheck's (at least 17, the shells' completion included)", n)
	}
}

// TestInspectHelpDefaults: inspect's help says what its flags really
// default to: the server's version, not lint's 16.
func TestInspectHelpDefaults(t *testing.T) {
	r := run(t, "inspect", "--help")
	assertCode(t, r, ExitOK)
	assertContains(t, "inspect --help", r.stdout, "(default: the server's own version)", "(default: 1s, or half of --timeout when that is shorter)")
	assertLacks(t, "inspect --help", r.stdout, "(default 16)", "(default 1s)")
	r = run(t, "lint", "--help")
	assertContains(t, "lint --help", r.stdout, "(13..18) (default 16)")
}

// TestCompletion: every flag that takes one of a fixed set of values
// completes them, and so does the rule id after rules.
func TestCompletion(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"lint", "--layout", ""}, []string{"golang-migrate", "goose", "flyway"}},
		{[]string{"lint", "--format", ""}, []string{"text", "json", "sarif", "github", "gitlab"}},
		{[]string{"lint", "--fail-on", ""}, []string{"error", "none"}},
		{[]string{"lint", "--min-severity", ""}, []string{"info"}},
		{[]string{"lint", "--color", ""}, []string{"auto", "always", "never"}},
		{[]string{"lint", "--rule", ""}, []string{"nullable-key"}},
		{[]string{"lint", "--severity", "nullable-key="}, []string{"nullable-key=warning"}},
		{[]string{"inspect", "--disable", ""}, []string{"optional-unique"}},
		{[]string{"race", "http", "--sync", ""}, []string{"auto", "h1", "h2"}},
		{[]string{"race", "http", "--split", ""}, []string{"headers", "last-byte"}},
		{[]string{"race", "http", "--release", ""}, []string{"spin", "wake"}},
		{[]string{"race", "http", "--profile", ""}, []string{"ietf", "stripe", "custom"}},
		{[]string{"race", "http", "--format", ""}, []string{"text", "json"}},
		{[]string{"race", "http", "--color", ""}, []string{"never"}},
		{[]string{"race", "sql", "--isolation", ""}, []string{"serializable"}},
		{[]string{"race", "demo", "--color", ""}, []string{"always"}},
		{[]string{"rules", ""}, []string{"nullable-key", "unused-ignore"}},
	}
	for _, c := range cases {
		r := run(t, append([]string{cobra.ShellCompRequestCmd}, c.args...)...)
		assertCode(t, r, ExitOK)
		assertContains(t, strings.Join(c.args, " ")+" completion", r.stdout, c.want...)
	}
}

// TestRaceColorAndRequests: race takes --color like every command, and
// the request count is -n or --requests.
func TestRaceColorAndRequests(t *testing.T) {
	r := run(t, "race", "demo", "--color", "rainbow")
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, `unknown --color "rainbow"`)
	r = run(t, "race", "http", "-X", "8", "http://127.0.0.1:1/{{key}}")
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, "the number of requests per round is -n/--requests")
	r = invocation{terminal: true}.run(t, "race", "demo", "--color", "always")
	assertCode(t, r, ExitOK)
	assertContains(t, "race demo --color always", r.stdout, "\x1b[31;1mBROKEN\x1b[", "\x1b[32;1mHOLDS\x1b[")
	r = invocation{terminal: true, env: map[string]string{"NO_COLOR": "1"}}.run(t, "race", "demo")
	assertCode(t, r, ExitOK)
	assertContains(t, "race demo under NO_COLOR", r.stdout, "\nBROKEN:", "\nHOLDS:")
	assertLacks(t, "race demo under NO_COLOR", r.stdout, "\x1b[")
	r = run(t, "race", "sql", "--help")
	assertContains(t, "race sql --help", r.stdout, "-n, --requests int")
	r = run(t, "race", "http", "--help")
	assertContains(t, "race http --help", r.stdout, "-n, --requests int", "-d, --data string", "--color string")
}

// TestUnknownRuleInDirectiveWarns: an ignore directive naming a rule that
// does not exist is a warning with the rule meant, even when unused-ignore,
// which would also report it, is disabled.
func TestUnknownRuleInDirectiveWarns(t *testing.T) {
	path := writeFile(t, "schema.sql", "-- idemcheck:ignore nulable-key the key is always set\n"+holeSQL)
	r := run(t, "lint", "--disable", "unused-ignore", path)
	assertCode(t, r, ExitFindings)
	assertContains(t, "stderr", r.stder, `warning: `+path+`:1:1: idemcheck:ignore names an unknown rule "nulable-key" (did you mean "nullable-key"?); it suppresses nothing`)
	assertContains(t, "stdout", r.stdout, "error nullable-key")
}

// TestUnknownRuleInConfigWarns: an unknown rule id in the configuration's
// ignore entries, rules.disable or rules.severity is a warning naming file,
// line and the rule meant, and the rest of the file applies; under
// rules.enable it stops the run, since the rule asked for cannot run.
func TestUnknownRuleInConfigWarns(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		".idemcheck.yaml": `fail-on: error
rules:
  disable: [optional-uniq]
  severity:
    nulable-key: info
ignore:
  - object: public.events.index_unique_transaction_id
    rule: nullable-kye
    reason: legacy
`,
		"schema.sql": holeSQL,
	})
	r := run(t, "lint", "--config", dir+"/.idemcheck.yaml", dir+"/schema.sql")
	assertCode(t, r, ExitFindings)
	assertContains(t, "stderr", r.stder,
		`.idemcheck.yaml:3: unknown rule "optional-uniq" in rules.disable (did you mean "optional-unique"?); the entry is ignored`,
		`.idemcheck.yaml:5: unknown rule "nulable-key" in rules.severity (did you mean "nullable-key"?)`,
		`.idemcheck.yaml:7: unknown rule "nullable-kye" in an ignore entry for public.events.index_unique_transaction_id (did you mean "nullable-key"?)`)
	assertContains(t, "stdout", r.stdout, "error nullable-key")

	dir = testtree.Write(t, map[string]string{".idemcheck.yaml": "rules:\n  enable: [nulable-key]\n", "schema.sql": holeSQL})
	r = run(t, "lint", "--config", dir+"/.idemcheck.yaml", dir+"/schema.sql")
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, `.idemcheck.yaml:2: unknown rule "nulable-key" in rules.enable (did you mean "nullable-key"?)`)
}

// TestTextFitsTheTerminal: on a terminal the text report wraps its prose at
// the terminal's width; elsewhere at the fixed 100 columns, whatever the
// terminal would have been; a finding's first line never wraps.
func TestTextFitsTheTerminal(t *testing.T) {
	first := regexp.MustCompile(`^\S+:\d+:\d+: (error|warning|info) [a-z][a-z-]+`)
	narrow := invocation{terminal: true, width: 60}.run(t, "lint", "--color", "never", paymentsTree)
	assertCode(t, narrow, ExitFindings)
	wide := invocation{terminal: false, width: 60}.run(t, "lint", paymentsTree)
	if narrow.stdout == wide.stdout {
		t.Fatal("the report on a 60-column terminal is the report for a pipe")
	}
	proseWidth := func(r result) (longest int, firstLines int) {
		for _, block := range strings.Split(r.stdout, "\n\n") {
			lines := strings.Split(block, "\n")
			if !first.MatchString(lines[0]) {
				continue
			}
			firstLines++
			// The message: the lines after the first, up to the first
			// fix (SQL keeps its own lines).
			for _, l := range lines[1:] {
				if strings.HasPrefix(l, "  fix: ") {
					break
				}
				// A word longer than the line (an object's name, a
				// related position and its first word) stays whole.
				if len(strings.Fields(l)) > 2 {
					longest = max(longest, len([]rune(l)))
				}
			}
		}
		return
	}
	longest, n := proseWidth(narrow)
	if n < 5 || longest > 60 || longest < 40 {
		t.Errorf("on a 60-column terminal: %d findings, longest message line %d columns, want at most 60", n, longest)
	}
	longest, _ = proseWidth(wide)
	if longest <= 60 || longest > 100 {
		t.Errorf("in a pipe: longest message line %d columns, want the fixed 100 (more than the terminal's 60)", longest)
	}
	for _, l := range strings.Split(narrow.stdout, "\n") {
		if strings.Contains(l, ".sql:") && !strings.HasPrefix(l, " ") && !first.MatchString(l) {
			t.Errorf("a position line that is not a finding's whole first line: %q", l)
		}
	}
}
