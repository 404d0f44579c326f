package report

import (
	"fmt"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
)

// RuleHelpText is a rule's whole doc as plain text: the doc, then the bad
// and the good example. SARIF rule help uses it, so code scanning shows the
// same text as `idemcheck rules ID`.
func RuleHelpText(r *audit.Rule) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(r.Doc))
	for _, ex := range []struct{ label, sql string }{{"Bad", r.Bad}, {"Good", r.Good}} {
		if sql := strings.Trim(ex.sql, "\n"); strings.TrimSpace(sql) != "" {
			fmt.Fprintf(&b, "\n\n%s:\n\n%s", ex.label, indentLines(sql, "    "))
		}
	}
	return b.String() + "\n"
}

// RuleHelpMarkdown is RuleHelpText with the examples in SQL code blocks.
func RuleHelpMarkdown(r *audit.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: %s\n\n%s", r.ID, r.Title, strings.TrimSpace(r.Doc))
	for _, ex := range []struct{ label, sql string }{{"Bad", r.Bad}, {"Good", r.Good}} {
		if sql := strings.Trim(ex.sql, "\n"); strings.TrimSpace(sql) != "" {
			fmt.Fprintf(&b, "\n\n%s:\n\n```sql\n%s\n```", ex.label, sql)
		}
	}
	return b.String() + "\n"
}

// RulesTable is the README's rule table in Markdown: one row per rule with
// its id, default severity, the catalog it needs and its title. The README
// keeps it between <!-- rules:start --> and <!-- rules:end -->, and a test
// fails when the two differ.
func RulesTable(rules []*audit.Rule) string {
	var b strings.Builder
	b.WriteString("| rule | severity | checks | what it finds |\n|---|---|---|---|\n")
	for _, r := range rules {
		// The anchor is what SARIF's helpUri points at.
		fmt.Fprintf(&b, "| <a id=\"rule-%s\"></a>`%s` | %s | %s | %s |\n", r.ID, r.ID, r.Severity, needsText(r.Needs), strings.ReplaceAll(r.Title, "|", `\|`))
	}
	return b.String()
}

func needsText(n audit.Needs) string {
	switch n {
	case audit.Migrations:
		return "migrations"
	case audit.Live:
		return "live databases"
	}
	return "migrations and live databases"
}

func indentLines(text, indent string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(indent+l, " ")
	}
	return strings.Join(lines, "\n")
}
