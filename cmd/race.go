package cmd

import (
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/spf13/cobra"
)

func init() { register(newRaceCmd) }

// newRaceCmd is the `race` group: probes that fire identical requests at
// once and judge whether the idempotency gate held.
func newRaceCmd(s *Streams) *cobra.Command {
	c := asGroup(&cobra.Command{
		Use:   "race",
		Short: "Fire identical requests at the same moment and say whether the gate held",
		Long: `race lands N identical requests at a running system together, round after
round with a fresh key each round, classifies what came back and says
whether exactly one of them performed the effect.

Exit status: 0 the gate held, 1 the gate is broken (or a conformance check
failed), 3 inconclusive, 2 usage or no connection.`,
		Example: `  idemcheck race demo
  idemcheck race http -H 'Idempotency-Key: {{key}}' -d '{"amount":100}' http://127.0.0.1:8080/payments
  idemcheck race sql --dsn "$DATABASE_URL" 'INSERT INTO claims (key) VALUES ({{key}}) ON CONFLICT DO NOTHING RETURNING 1'`,
	})
	for _, sub := range raceSubcommands {
		c.AddCommand(sub(s))
	}
	return c
}

// raceSubcommands are added by each race_*.go file, so that a new probe
// (race sql) is one new file.
var raceSubcommands []func(*Streams) *cobra.Command

// raceOutput are the output flags every race probe shares.
type raceOutput struct {
	format  string
	verbose bool
	color   string
	// colored is --color decided (validate): whether the text is coloured.
	colored bool
	// quiet is --quiet (race http and race sql): no progress line.
	quiet bool
}

func (o *raceOutput) bind(c *cobra.Command) {
	c.Flags().StringVar(&o.format, "format", "text", "output format: text or json")
	c.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "print a line per round")
	c.Flags().StringVar(&o.color, "color", "auto", "colour the verdict in the text output: auto, always or never (auto: on a terminal, unless NO_COLOR is set)")
	completeWords(c, "format", []string{"text", "json"})
	completeWords(c, "color", colorModes)
}

// bindQuiet adds --quiet, for the probes that show a progress line.
func (o *raceOutput) bindQuiet(c *cobra.Command) {
	c.Flags().BoolVarP(&o.quiet, "quiet", "q", false, "no progress line on stderr (shown only when stderr is a terminal); the report is the same")
}

func (o *raceOutput) validate(s *Streams) error {
	if o.format != "text" && o.format != "json" {
		return usageError("--format %q: want text or json", o.format)
	}
	f := auditFlags{Color: o.color}
	var err error
	o.colored, err = f.useColor(s)
	return err
}

// writeRaceResult prints res, all at once, and turns its verdict into the
// exit status (race demo; race http and race sql show the header first).
func writeRaceResult(s *Streams, o raceOutput, res *racetest.Result) error {
	return newRaceReport(s, o).write(res)
}

// verdictExit maps a verdict to the exit statuses of docs/cli.md.
func verdictExit(st racetest.Status) error {
	switch st {
	case racetest.Holds:
		return nil
	case racetest.Broken:
		return exitWith(ExitFindings)
	}
	return exitWith(ExitInconclusive)
}
