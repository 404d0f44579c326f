package cmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/idemcheck/idemcheck/audit"
)

func init() { register(newRulesCmd) }

func newRulesCmd(s *Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "rules [ID]",
		Short: "List the rules, or show one rule's full doc with examples",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return listRules(s.Out, audit.Rules)
			}
			r := audit.Lookup(args[0])
			if r == nil {
				return unknownRuleError(args[0])
			}
			return describeRule(s.Out, r)
		},
	}
}

// listRules writes one line per rule: id, default severity, what catalog it
// needs, title.
func listRules(w io.Writer, rules []*audit.Rule) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tNEEDS\tTITLE")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Severity, r.Needs, r.Title)
	}
	return tw.Flush()
}

// describeRule writes a rule's whole doc: the same text serves the README
// table and SARIF rule metadata, so it is printed as the rule states it.
func describeRule(w io.Writer, r *audit.Rule) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\n", r.ID, r.Title)
	fmt.Fprintf(&b, "severity: %s\nneeds:    %s\n\n", r.Severity, r.Needs)
	if doc := strings.TrimSpace(r.Doc); doc != "" {
		b.WriteString(doc + "\n")
	}
	writeExample(&b, "Bad", r.Bad)
	writeExample(&b, "Good", r.Good)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeExample(b *strings.Builder, label, sql string) {
	sql = strings.Trim(sql, "\n")
	if strings.TrimSpace(sql) == "" {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", label)
	for _, line := range strings.Split(sql, "\n") {
		b.WriteString(strings.TrimRight("    "+line, " ") + "\n")
	}
}
