package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/pipeline"
	"github.com/idemcheck/idemcheck/report"
)

// auditFlags are the flags lint and inspect share (docs/cli.md, "Flags lint and inspect share"):
// output format, exit threshold, target version, rule selection, colour and
// verbosity. addTo registers them; each command then turns them into typed
// settings with the methods below, which return usage errors.
type auditFlags struct {
	Format      string
	FailOn      string
	MinSeverity string
	PGVersion   int
	Rules       []string
	Disable     []string
	Severity    []string
	Color       string
	Verbose     bool
	// Config is --config; empty finds .idemcheck.yaml by walking up.
	Config string
	// FixSQL is --fix-sql: a file, or a directory for the next migration.
	FixSQL string
}

// Supported values, in the order error messages list them.
var (
	failOnNames   = []string{"error", "warning", "info", "none"}
	severityNames = []string{"error", "warning", "info"}
	colorModes    = []string{"auto", "always", "never"}
)

const (
	minPGVersion     = 13
	maxPGVersion     = 18
	defaultPGVersion = 16
)

func (f *auditFlags) addTo(c *cobra.Command) {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[reportAnnotation] = "true"
	fl := c.Flags()
	fl.StringVar(&f.Format, "format", "text", "output format: "+report.FormatHelp())
	fl.StringVar(&f.FailOn, "fail-on", "warning", "lowest severity that makes the exit status 1: error, warning, info or none")
	fl.StringVar(&f.MinSeverity, "min-severity", "info", "lowest severity printed, in every format: error, warning or info (the summary still counts the rest)")
	fl.IntVar(&f.PGVersion, "pg-version", defaultPGVersion, fmt.Sprintf("PostgreSQL major version fixes are written for (%d..%d)", minPGVersion, maxPGVersion))
	fl.StringArrayVar(&f.Rules, "rule", nil, "run only this rule (repeatable)")
	fl.StringArrayVar(&f.Disable, "disable", nil, "do not run this rule (repeatable)")
	fl.StringArrayVar(&f.Severity, "severity", nil, "report a rule at another severity: ID=error|warning|info (repeatable)")
	fl.StringVar(&f.Color, "color", "auto", "colour the text output: auto, always or never")
	fl.BoolVarP(&f.Verbose, "verbose", "v", false, "say what was read, show notes and every fix in full")
	fl.StringVar(&f.Config, "config", "", "configuration file (default: "+config.FileName+" in the working directory or a parent)")
	fl.StringVar(&f.FixSQL, "fix-sql", "", "write every finding's first fix to this file, or as the next migration into this directory")
	completeWords(c, "format", report.FormatNames())
	completeWords(c, "fail-on", failOnNames)
	completeWords(c, "min-severity", severityNames)
	completeWords(c, "color", colorModes)
	completeWords(c, "rule", ruleIDs())
	completeWords(c, "disable", ruleIDs())
	_ = c.RegisterFlagCompletionFunc("severity", completeSeverity)
}

// completeSeverity completes --severity ID=LEVEL: a rule id first, then,
// after the "=", the levels.
func completeSeverity(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if id, _, ok := strings.Cut(toComplete, "="); ok {
		out := make([]string, len(severityNames))
		for i, s := range severityNames {
			out[i] = id + "=" + s
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	ids := ruleIDs()
	for i := range ids {
		ids[i] += "="
	}
	return ids, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// defaultIs makes help say what a flag really defaults to when that is not
// a fixed value (inspect's --pg-version is the server's own version): the
// flag's usage gains "(default: what)" and the fixed value cobra would show
// is hidden.
func defaultIs(c *cobra.Command, flag, what string) {
	f := c.Flags().Lookup(flag)
	f.Usage += " (default: " + what + ")"
	switch f.Value.Type() {
	case "duration":
		f.DefValue = "0s"
	case "string":
		f.DefValue = ""
	default:
		f.DefValue = "0"
	}
}

// completeWords makes shell completion offer words for a flag's value. The
// only possible error is a misspelt flag name, which the completion test
// catches.
func completeWords(c *cobra.Command, flag string, words []string) {
	_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp))
}

// checkFormat rejects formats this build cannot write.
func (f *auditFlags) checkFormat() error {
	if report.LookupFormat(f.Format) == nil {
		return usageError("unknown --format %q (want %s)", f.Format, strings.Join(report.FormatNames(), " or "))
	}
	return nil
}

// checkPGVersion rejects versions outside the range fixes are written for.
func (f *auditFlags) checkPGVersion() error {
	if f.PGVersion < minPGVersion || f.PGVersion > maxPGVersion {
		return usageError("--pg-version %d is out of range (want %d..%d)", f.PGVersion, minPGVersion, maxPGVersion)
	}
	return nil
}

// auditSettings are the shared flags checked and typed.
type auditSettings struct {
	Rules       []*audit.Rule
	Severities  map[string]audit.Severity
	FailOn      pipeline.Threshold
	MinSeverity audit.Severity
	Color       bool
}

// settings checks the shared flags in the order their errors are reported:
// format, then --pg-version when checkPG is set, then what the command
// checks itself (more, which may be nil), then the rest.
func (f *auditFlags) settings(s *Streams, checkPG bool, more func() error) (auditSettings, error) {
	var st auditSettings
	var err error
	if err = f.checkFormat(); err != nil {
		return st, err
	}
	if checkPG {
		if err = f.checkPGVersion(); err != nil {
			return st, err
		}
	}
	if more != nil {
		if err = more(); err != nil {
			return st, err
		}
	}
	if st.FailOn, err = f.failThreshold(); err != nil {
		return st, err
	}
	if st.MinSeverity, err = f.minSeverity(); err != nil {
		return st, err
	}
	if st.Rules, err = f.selectRules(); err != nil {
		return st, err
	}
	if st.Severities, err = f.severityOverrides(); err != nil {
		return st, err
	}
	if st.Color, err = f.useColor(s); err != nil {
		return st, err
	}
	return st, nil
}

// failThreshold is the --fail-on setting.
func (f *auditFlags) failThreshold() (pipeline.Threshold, error) {
	if f.FailOn == "none" {
		return pipeline.Threshold{Never: true}, nil
	}
	if !slices.Contains(failOnNames, f.FailOn) {
		return pipeline.Threshold{}, usageError("unknown --fail-on %q (want %s)", f.FailOn, strings.Join(failOnNames, ", "))
	}
	s, err := audit.ParseSeverity(f.FailOn)
	return pipeline.Threshold{Severity: s}, err
}

// minSeverity is --min-severity: the lowest severity any format prints.
func (f *auditFlags) minSeverity() (audit.Severity, error) {
	if !slices.Contains(severityNames, f.MinSeverity) {
		return audit.Info, usageError("unknown --min-severity %q (want %s)", f.MinSeverity, strings.Join(severityNames, ", "))
	}
	return audit.ParseSeverity(f.MinSeverity)
}

// selectRules returns the rules to run: all registered rules, or only those
// named by --rule, minus those named by --disable.
func (f *auditFlags) selectRules() ([]*audit.Rule, error) {
	for _, id := range append(append([]string(nil), f.Rules...), f.Disable...) {
		if audit.Lookup(id) == nil {
			return nil, unknownRuleError(id)
		}
	}
	var out []*audit.Rule
	for _, r := range audit.Rules {
		if len(f.Rules) > 0 && !slices.Contains(f.Rules, r.ID) {
			continue
		}
		if slices.Contains(f.Disable, r.ID) {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// severityOverrides reads --severity ID=LEVEL into a map by rule id.
func (f *auditFlags) severityOverrides() (map[string]audit.Severity, error) {
	out := map[string]audit.Severity{}
	for _, kv := range f.Severity {
		id, level, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usageError("--severity %q: want ID=LEVEL, for example nullable-key=warning", kv)
		}
		if audit.Lookup(id) == nil {
			return nil, unknownRuleError(id)
		}
		s, err := audit.ParseSeverity(level)
		if err != nil {
			return nil, usageError("--severity %q: %v", kv, err)
		}
		out[id] = s
	}
	return out, nil
}

// useColor decides whether text output is coloured. "auto" follows the
// usual conventions: NO_COLOR turns colour off, CLICOLOR_FORCE (other than
// "0") turns it on, and otherwise colour is on only for a terminal.
func (f *auditFlags) useColor(s *Streams) (bool, error) {
	switch f.Color {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return autoColor(s), nil
	}
	return false, usageError("unknown --color %q (want %s)", f.Color, strings.Join(colorModes, ", "))
}

func autoColor(s *Streams) bool {
	getenv := s.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if getenv("NO_COLOR") != "" {
		return false
	}
	if force := getenv("CLICOLOR_FORCE"); force != "" && force != "0" {
		return true
	}
	return s.OutTerminal
}

// unknownRuleError is the usage error for a rule id nobody registered; it
// lists the ids that exist so the user can correct the spelling.
func unknownRuleError(id string) error {
	if hint := audit.SuggestRule(id); hint != "" {
		return usageError("unknown rule %q%s; \"idemcheck rules\" lists the rules", id, hint)
	}
	return usageError("unknown rule %q (rules: %s)", id, strings.Join(ruleIDs(), ", "))
}

func ruleIDs() []string {
	ids := make([]string, len(audit.Rules))
	for i, r := range audit.Rules {
		ids[i] = r.ID
	}
	return ids
}
