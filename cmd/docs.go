package cmd

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/report"
)

func init() { register(newDocsCmd) }

func newDocsCmd(s *Streams) *cobra.Command {
	docs := asGroup(&cobra.Command{
		Use:   "docs",
		Short: "Generate documentation: man pages, the rule table",
		Long: `docs writes documentation generated from the commands and the rules: a man
page per command (for packagers), and the Markdown table of the rules that
docs/rules.md carries (scripts/regen.sh keeps it current).`,
		Example: `  idemcheck docs man ./man
  idemcheck docs rules-table`,
	})
	docs.AddCommand(&cobra.Command{
		Use:     "man DIR",
		Short:   "Write a man page for every command into DIR",
		Example: `  idemcheck docs man ./man && man ./man/idemcheck-lint.1`,
		Args:    oneArg("the directory to write the man pages into", "idemcheck docs man ./man"),
		RunE: func(c *cobra.Command, args []string) error {
			return writeManPages(c.Root(), args[0], s)
		},
	})
	docs.AddCommand(&cobra.Command{
		Use:     "rules-table",
		Short:   "Print the rule table of docs/rules.md (Markdown) from the rule docs",
		Example: `  idemcheck docs rules-table    # the Markdown table, on stdout`,
		Args:    noArgs(""),
		RunE: func(c *cobra.Command, args []string) error {
			_, err := fmt.Fprint(s.Out, report.RulesTable(audit.Rules))
			return err
		},
	})
	return docs
}

// writeManPages writes idemcheck.1, idemcheck-lint.1, ... into dir with
// cobra's generator. SOURCE_DATE_EPOCH fixes the date for reproducible
// builds.
func writeManPages(root *cobra.Command, dir string, s *Streams) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError("docs man: %v", err)
	}
	date := time.Now()
	if epoch := s.getenv("SOURCE_DATE_EPOCH"); epoch != "" {
		sec, err := strconv.ParseInt(epoch, 10, 64)
		if err != nil {
			return usageError("SOURCE_DATE_EPOCH %q is not a number of seconds", epoch)
		}
		date = time.Unix(sec, 0).UTC()
	}
	root.DisableAutoGenTag = true
	header := &doc.GenManHeader{Title: "IDEMCHECK", Section: "1", Source: "idemcheck " + toolVersion(), Manual: "idemcheck manual", Date: &date}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return usageError("docs man %s: %v", dir, err)
	}
	_, err := fmt.Fprintf(s.Err, "wrote man pages to %s\n", dir)
	return err
}

// getenv reads the environment through the streams, so tests can set it.
func (s *Streams) getenv(key string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(key)
}
