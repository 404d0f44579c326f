package cmd

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/report"
)

func init() { register(newRulesCmd) }

func newRulesCmd(s *Streams) *cobra.Command {
	return &cobra.Command{
		Use:   "rules [ID]",
		Short: "List the rules, or show one rule's full doc with examples",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return report.RuleList(s.Out, audit.Rules)
			}
			r := audit.Lookup(args[0])
			if r == nil {
				return unknownRuleError(args[0])
			}
			_, err := io.WriteString(s.Out, report.RuleDoc(r))
			return err
		},
	}
}
