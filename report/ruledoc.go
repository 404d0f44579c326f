package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/idemcheck/idemcheck/audit"
)

// A rule's doc is rendered here and nowhere else: `idemcheck rules` and
// `idemcheck rules ID` (RuleList, RuleDoc), SARIF rule help (RuleHelpText,
// RuleHelpMarkdown) and the table of docs/rules.md (RulesTable) all read the rule
// values through these functions.

// ruleExample is one of a rule's examples, trimmed of blank lines around it.
type ruleExample struct{ label, sql string }

// ruleExamples are r's bad and good examples, in that order; an empty one is
// left out.
func ruleExamples(r *audit.Rule) []ruleExample {
	var out []ruleExample
	for _, ex := range []ruleExample{{"Bad", r.Bad}, {"Good", r.Good}} {
		if sql := strings.Trim(ex.sql, "\n"); strings.TrimSpace(sql) != "" {
			out = append(out, ruleExample{ex.label, sql})
		}
	}
	return out
}

// RuleList writes one line per rule, in columns: id, default severity, the
// catalog it needs, title.
func RuleList(w io.Writer, rules []*audit.Rule) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tNEEDS\tTITLE")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Needs, r.Title)
	}
	return tw.Flush()
}

// RuleDoc is a rule's whole doc for the terminal (`idemcheck rules ID`): id
// and title, default severity and needs, the doc, then the examples
// indented.
func RuleDoc(r *audit.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\n", r.ID, r.Title)
	fmt.Fprintf(&b, "severity: %s\nneeds:    %s\n\n", r.Severity, r.Needs)
	if doc := strings.TrimSpace(r.Doc); doc != "" {
		b.WriteString(doc + "\n")
	}
	for _, ex := range ruleExamples(r) {
		fmt.Fprintf(&b, "\n%s:\n%s\n", ex.label, indentLines(ex.sql, "    "))
	}
	return b.String()
}

// RuleHelpText is a rule's whole doc as plain text: the doc, then the bad
// and the good example. SARIF rule help uses it, so code scanning shows the
// same text as `idemcheck rules ID`.
func RuleHelpText(r *audit.Rule) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(r.Doc))
	for _, ex := range ruleExamples(r) {
		fmt.Fprintf(&b, "\n\n%s:\n\n%s", ex.label, indentLines(ex.sql, "    "))
	}
	return b.String() + "\n"
}

// RuleHelpMarkdown is RuleHelpText with the examples in SQL code blocks.
func RuleHelpMarkdown(r *audit.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: %s\n\n%s", r.ID, r.Title, strings.TrimSpace(r.Doc))
	for _, ex := range ruleExamples(r) {
		fmt.Fprintf(&b, "\n\n%s:\n\n```sql\n%s\n```", ex.label, ex.sql)
	}
	return b.String() + "\n"
}

// RulesTable is the rule table of docs/rules.md in Markdown: one row per
// rule with its id, default severity, the catalog it needs and its title.
// The page keeps it between <!-- rules:start --> and <!-- rules:end -->, and
// a test fails when the two differ.
func RulesTable(rules []*audit.Rule) string {
	var b strings.Builder
	b.WriteString("| rule | severity | checks | what it finds |\n|---|---|---|---|\n")
	for _, r := range rules {
		// The anchor lets a page link to a rule's row.
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

// RulesReference is docs/rules-reference.md: every rule's id, default
// severity, the catalog it needs, title, doc and examples, in registry
// order. It is generated (scripts/regen.sh) and a test fails when the file
// in the tree differs.
func RulesReference(rules []*audit.Rule) string {
	var b strings.Builder
	b.WriteString("# Rule reference\n\n")
	b.WriteString("<!-- Generated from the rule values in audit/ by scripts/regen.sh; do not edit. -->\n\n")
	b.WriteString("Why the rules reason the way they do is in [rules.md](rules.md). `idemcheck rules ID`\n")
	b.WriteString("prints the same text in a terminal.\n\n")
	b.WriteString(RulesTable(rules))
	for _, r := range rules {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n*default severity:* %s · *checks:* %s\n\n%s",
			r.ID, r.Title, r.Severity, needsText(r.Needs), strings.TrimSpace(r.Doc)+"\n")
		for _, ex := range ruleExamples(r) {
			fmt.Fprintf(&b, "\n%s:\n\n```sql\n%s\n```\n", ex.label, ex.sql)
		}
	}
	return b.String()
}
