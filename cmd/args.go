package cmd

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/idemcheck/idemcheck/internal/suggest"
)

// This file holds what the command line says when it cannot be read: an
// unknown command or flag (with the nearest known one), and arguments
// missing or in excess (naming what is missing, not counting it). Every one
// is a usage error: exit 2.

// groupArgs is the Args of a command that only groups others (the root,
// race, docs): any argument is a command nobody registered.
func groupArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() || sub.Name() == "help" {
			names = append(names, sub.Name())
			names = append(names, sub.Aliases...)
		}
	}
	return usageError("unknown command %q for %q%s; %q lists the commands", args[0], c.CommandPath(),
		suggest.DidYouMean(args[0], names), c.CommandPath()+" --help")
}

// groupRun shows a group's help when it is run without a command.
func groupRun(c *cobra.Command, _ []string) error { return c.Help() }

// asGroup makes c a command that groups others: run alone it shows its
// help, and an argument that names none of its commands is a usage error.
func asGroup(c *cobra.Command) *cobra.Command {
	c.Args = groupArgs
	c.RunE = groupRun
	return c
}

// noArgs is the Args of a command that takes no arguments; hint says where
// what the user may have meant goes instead ("the database is given with
// --dsn").
func noArgs(hint string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("%s takes no arguments, got %s", name(c), quoteArgs(args))
		if hint != "" {
			msg += "; " + hint
		}
		return usageError("%s", msg)
	}
}

// oneArg is the Args of a command that takes exactly one argument, what:
// its absence is named ("race http needs the URL to race"), and so are the
// extra words.
func oneArg(what, example string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return usageError("%s needs %s (for example: %s)", name(c), what, example)
		case len(args) > 1:
			return usageError("%s takes one argument, %s, got %d: %s (quote an argument that holds spaces)",
				name(c), what, len(args), quoteArgs(args))
		}
		return nil
	}
}

// atMostOneArg is the Args of a command with one optional argument.
func atMostOneArg(what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) > 1 {
			return usageError("%s takes at most one argument, %s, got %d: %s (quote an argument that holds spaces)",
				name(c), what, len(args), quoteArgs(args))
		}
		return nil
	}
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(q, " ")
}

// newHelpCmd replaces cobra's help command, which prints the root's usage
// and exits 0 for a topic it does not know: here an unknown topic is an
// unknown command, as it is without "help".
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Example: `  idemcheck help lint
  idemcheck help race http`,
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			target, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, sub := range target.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil {
				return usageError("%v", err)
			}
			if len(rest) > 0 {
				return groupArgs(target, rest)
			}
			return target.Help()
		},
	}
}

// completionExamples are the Examples of cobra's completion commands, one
// per shell.
var completionExamples = map[string]string{
	"bash": `  source <(idemcheck completion bash)
  idemcheck completion bash > /etc/bash_completion.d/idemcheck`,
	"zsh":        `  idemcheck completion zsh > "${fpath[1]}/_idemcheck"`,
	"fish":       `  idemcheck completion fish > ~/.config/fish/completions/idemcheck.fish`,
	"powershell": `  idemcheck completion powershell | Out-String | Invoke-Expression`,
}

// adoptCompletionCmd creates cobra's completion command now, rather than
// when it runs, and makes it behave as the other groups: Examples in its
// help, and an unknown shell named as one with the nearest shell.
func adoptCompletionCmd(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		asGroup(c)
		c.Example = "  idemcheck completion bash > /etc/bash_completion.d/idemcheck\n  idemcheck completion zsh > \"${fpath[1]}/_idemcheck\""
		for _, shell := range c.Commands() {
			shell.Example = completionExamples[shell.Name()]
		}
	}
}

// pflag words its parse errors in a few fixed ways; these find the flag an
// unknown-flag error is about.
var (
	unknownLong  = regexp.MustCompile(`^unknown flag: --(\S+)`)
	unknownShort = regexp.MustCompile(`^unknown shorthand flag: '(.)' in (\S+)`)
)

// flagError words a flag the command cannot parse as a usage error, with
// the nearest flag the command has when the flag is unknown.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	who := name(c) + ": "
	if !c.HasParent() {
		who = ""
	}
	help := fmt.Sprintf("%q lists the flags", c.CommandPath()+" --help")
	if m := unknownLong.FindStringSubmatch(msg); m != nil {
		flag, _, _ := strings.Cut(m[1], "=")
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		})
		hint := ""
		if near := suggest.Closest(flag, names); near != "" {
			hint = fmt.Sprintf(" (did you mean --%s?)", near)
		}
		return usageError("%sunknown flag --%s%s; %s", who, flag, hint, help)
	}
	if m := unknownShort.FindStringSubmatch(msg); m != nil {
		hint := ""
		if f := c.Flags().Lookup(m[1]); f == nil && len(m[2]) > 2 && !strings.HasPrefix(m[2], "--") {
			// -format is a long flag written with one dash.
			if long := c.Flags().Lookup(strings.TrimPrefix(m[2], "-")); long != nil {
				hint = fmt.Sprintf(" (did you mean --%s?)", long.Name)
			}
		}
		return usageError("%sunknown shorthand flag -%s in %s%s; %s", who, m[1], m[2], hint, help)
	}
	return usageError("%s%v; %s", who, err, help)
}

// name is the command's path without the program's name ("race http"),
// since every message already starts with "idemcheck: "; the root is
// "idemcheck".
func name(c *cobra.Command) string {
	if !c.HasParent() {
		return c.Name()
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}
