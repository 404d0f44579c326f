package cmd

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/audit"
)

func TestRulesList(t *testing.T) {
	r := run(t, "rules")
	assertCode(t, r, ExitOK)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != len(audit.Rules)+1 {
		t.Fatalf("want a header and %d rules, got:\n%s", len(audit.Rules), r.stdout)
	}
	assertContains(t, "stdout", r.stdout, "ID", "SEVERITY", "NEEDS", "TITLE")
	for i, rule := range audit.Rules {
		fields := strings.Fields(lines[i+1])
		if len(fields) < 4 || fields[0] != rule.ID || fields[1] != rule.Severity.String() || fields[2] != rule.Needs.String() {
			t.Errorf("line %q, want %s %s %s ...", lines[i+1], rule.ID, rule.Severity, rule.Needs)
		}
		if !strings.HasSuffix(lines[i+1], rule.Title) {
			t.Errorf("line %q does not end with the title %q", lines[i+1], rule.Title)
		}
	}
}

func TestRulesNullableKey(t *testing.T) {
	rule := audit.Lookup("nullable-key")
	if rule == nil {
		t.Fatal("nullable-key is not registered")
	}
	r := run(t, "rules", "nullable-key")
	assertCode(t, r, ExitOK)
	assertContains(t, "stdout", r.stdout, "nullable-key: "+rule.Title, "severity: ", "needs:", "Bad:", "Good:")
	firstDocLine := strings.SplitN(strings.TrimSpace(rule.Doc), "\n", 2)[0]
	assertContains(t, "stdout", r.stdout, firstDocLine)
	firstBadLine := strings.SplitN(strings.TrimSpace(rule.Bad), "\n", 2)[0]
	assertContains(t, "stdout", r.stdout, "    "+firstBadLine)
}

func TestRulesUnknown(t *testing.T) {
	r := run(t, "rules", "no-such-rule")
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, `unknown rule "no-such-rule"`, "nullable-key", "optional-unique")
}
