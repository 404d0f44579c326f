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
		Example: `  idemcheck rules
  idemcheck rules nullable-key`,
		Args: atMostOneArg("a rule id"),
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return ruleIDs(), cobra.ShellCompDirectiveNoFileComp
		},
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
