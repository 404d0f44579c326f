package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sample = `# idemcheck settings for this repository
layout: golang-migrate
pg-version: 15
fail-on: error
rules:
  disable: [optional-unique]
  severity:
    unused-ignore: warning
ignore:
  - object: public.events.index_unique_transaction_id
    rule: nullable-key
    reason: events without a subscription are deduplicated upstream
include: ["db/**"]
exclude:
  - "db/migrations/*_seed.up.sql"
`

func TestParse(t *testing.T) {
	c, err := Parse("x/.idemcheck.yaml", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if c.Layout != "golang-migrate" || c.PGVersion != 15 || c.FailOn != "error" {
		t.Errorf("layout %q, pg-version %d, fail-on %q", c.Layout, c.PGVersion, c.FailOn)
	}
	if len(c.Rules.Disable) != 1 || c.Rules.Severity["unused-ignore"] != "warning" {
		t.Errorf("rules %+v", c.Rules)
	}
	if len(c.Ignore) != 1 || c.Ignore[0].Line != 10 || c.Ignore[0].Rule != "nullable-key" {
		t.Errorf("ignore %+v", c.Ignore)
	}
	if !c.Set["fail-on"] || c.Set["ignore"] == false || c.Set["nothing"] {
		t.Errorf("set %v", c.Set)
	}
}

// TestParseErrors: every mistake names the file and the line it is on.
func TestParseErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"layout: goose\nfail_on: error\n", "f.yaml:2:1: unknown key \"fail_on\""},
		{"pg-version: 12\n", "f.yaml:1:13: pg-version must be a PostgreSQL major version from 13 to 18"},
		{"pg-version: sixteen\n", "f.yaml:1:13: pg-version must be"},
		{"fail-on: sometimes\n", "f.yaml:1:10: fail-on: unknown value \"sometimes\""},
		{"rules:\n  severity:\n    nullable-key: fatal\n", "f.yaml:3:19: rules.severity.nullable-key: unknown value \"fatal\""},
		{"rules:\n  enabled: [x]\n", "f.yaml:2:3: unknown key \"enabled\" in rules"},
		{"ignore:\n  - object: public.t.k\n    rule: nullable-key\n", "f.yaml:2:5: the ignore entry for public.t.k needs a reason"},
		{"ignore:\n  - object: public.t.k\n    because: x\n", "f.yaml:3:5: unknown key \"because\" in an ignore entry"},
		{"include: [\"db/[\"]\n", "f.yaml:1:11: include: bad glob"},
		{"layout: goose\nlayout: dbmate\n", "f.yaml:2:1: \"layout\" is given twice"},
		{"layout: [goose\n", "f.yaml: "},
		{"- a\n- b\n", "f.yaml:1:1: the configuration must be a mapping"},
		{"vars:\n  Namespace: [a, b]\n", "f.yaml:2:14: vars.Namespace must be a value"},
		{"vars: auth\n", "f.yaml:1:7: vars must be a mapping"},
	}
	for _, c := range cases {
		_, err := Parse("f.yaml", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want prefix %q", c.src, err, c.want)
		}
	}
}

// vars: are the values of template placeholders, written as strings
// whatever YAML would have made of them.
func TestParseVars(t *testing.T) {
	c, err := Parse("f.yaml", []byte("vars:\n  Namespace: auth\n  Shards: 016\n  Enabled: yes\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Namespace": "auth", "Shards": "016", "Enabled": "yes"}
	if len(c.Vars) != len(want) {
		t.Fatalf("vars %v, want %v", c.Vars, want)
	}
	for k, v := range want {
		if c.Vars[k] != v {
			t.Errorf("vars[%s] = %q, want %q", k, c.Vars[k], v)
		}
	}
}

func TestEmptyFile(t *testing.T) {
	for _, src := range []string{"", "# nothing yet\n"} {
		if _, err := Parse("f.yaml", []byte(src)); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

func TestFindWalksUp(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, FileName), []byte("fail-on: none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Find(deep)
	if err != nil || got != filepath.Join(root, FileName) {
		t.Errorf("Find = %q, %v", got, err)
	}
	other := t.TempDir()
	if got, err := Find(other); err != nil || (got != "" && strings.HasPrefix(got, other)) {
		t.Errorf("Find in a tree without a config = %q, %v", got, err)
	}
}

func TestMatch(t *testing.T) {
	c := &Config{Dir: "/repo", Include: []string{"db/**"}, Exclude: []string{"db/migrations/*_seed.up.sql"}}
	cases := map[string]bool{
		"/repo/db/migrations/0001_init.up.sql": true,
		"/repo/db/migrations/0002_seed.up.sql": false,
		"/repo/db/x.sql":                       true,
		"/repo/other/0001.sql":                 false,
	}
	for file, want := range cases {
		if got := c.Match(file); got != want {
			t.Errorf("Match(%q) = %v, want %v", file, got, want)
		}
	}
	// Alternatives and a leading **.
	c = &Config{Dir: "/repo", Include: []string{"**/migrations/*.{up,sql}.sql"}, Exclude: []string{"**/testdata/**"}}
	cases = map[string]bool{
		"/repo/db/migrations/0001_init.up.sql":      true,
		"/repo/migrations/0001_init.sql.sql":        true,
		"/repo/db/migrations/0001_init.down.sql":    false,
		"/repo/pkg/testdata/migrations/0001.up.sql": false,
		"/repo/services/a/migrations/0003_x.up.sql": true,
	}
	for file, want := range cases {
		if got := c.Match(file); got != want {
			t.Errorf("Match(%q) = %v, want %v", file, got, want)
		}
	}
}
