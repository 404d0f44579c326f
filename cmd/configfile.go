package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/config"
)

// loadConfig reads --config, or the .idemcheck.yaml found by walking up from
// the working directory; nil when there is none. Every problem in it is a
// usage error naming the file and line.
func loadConfig(path string, s *Streams) (*config.Config, error) {
	if path == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, usageError("cannot find %s: %v", config.FileName, err)
		}
		if path, err = config.Find(wd); err != nil {
			return nil, usageError("cannot find %s: %v", config.FileName, err)
		}
		if path == "" {
			return nil, nil
		}
	}
	c, err := config.Load(displayPath(path))
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	if err := checkConfigRules(c, s); err != nil {
		return nil, err
	}
	return c, nil
}

// displayPath shows path relative to the working directory when it is below
// it, as every other path in the output is.
func displayPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return path
}

// checkConfigRules looks up every rule id the configuration names. An
// unknown id under rules.enable is a usage error: running fewer rules than
// the file asks for would pass a check nobody ran. Elsewhere (rules.disable,
// rules.severity, ignore) an unknown id could only silence or re-rank a
// rule this version does not have, so the entry is dropped with a warning
// on stderr that names it and the nearest rule: a typo is never a silent
// no-op, and a file written for a later version with more rules still runs.
func checkConfigRules(c *config.Config, s *Streams) error {
	where := func(line int) string { return fmt.Sprintf("%s:%d", c.Path, line) }
	for _, id := range c.Rules.Enable {
		if audit.Lookup(id) == nil {
			return usageError("%s: unknown rule %q in rules.enable%s (rules: %s)", where(c.Rules.Line[id]), id,
				audit.SuggestRule(id), strings.Join(ruleIDs(), ", "))
		}
	}
	warn := func(line int, id, in string) {
		fmt.Fprintf(s.Err, "idemcheck: warning: %s: unknown rule %q in %s%s; the entry is ignored\n", where(line), id, in, audit.SuggestRule(id))
	}
	known := c.Rules.Disable[:0]
	for _, id := range c.Rules.Disable {
		if audit.Lookup(id) == nil {
			warn(c.Rules.Line[id], id, "rules.disable")
			continue
		}
		known = append(known, id)
	}
	c.Rules.Disable = known
	ids := make([]string, 0, len(c.Rules.Severity))
	for id := range c.Rules.Severity {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return c.Rules.Line[ids[i]] < c.Rules.Line[ids[j]] })
	for _, id := range ids {
		if audit.Lookup(id) == nil {
			warn(c.Rules.Line[id], id, "rules.severity")
			delete(c.Rules.Severity, id)
		}
	}
	ignores := c.Ignore[:0]
	for _, ig := range c.Ignore {
		if audit.Lookup(ig.Rule) == nil {
			warn(ig.Line, ig.Rule, "an ignore entry for "+ig.Object)
			continue
		}
		ignores = append(ignores, ig)
	}
	c.Ignore = ignores
	return nil
}

// warnUnknownDirectiveRules says on stderr, for every ignore directive in
// the sources that names a rule nobody registered, where it is and which
// rule is nearest. Such a directive suppresses nothing; the unused-ignore
// rule reports it too, but that rule may be disabled or below
// --min-severity, and a typo must never pass unseen.
func warnUnknownDirectiveRules(ds []audit.Directive, s *Streams) {
	for _, d := range ds {
		if d.Kind == audit.SuppressConfig || d.Rule == "" || audit.Lookup(d.Rule) != nil {
			continue
		}
		fmt.Fprintf(s.Err, "idemcheck: warning: %s: idemcheck:ignore names an unknown rule %q%s; it suppresses nothing\n",
			d.Pos, d.Rule, audit.SuggestRule(d.Rule))
	}
}

// applyConfig fills in every setting the command line left alone from the
// configuration file; a flag given on the command line always wins.
func (f *auditFlags) applyConfig(c *config.Config, changed func(flag string) bool) {
	if c == nil {
		return
	}
	if c.Set["pg-version"] && !changed("pg-version") {
		f.PGVersion = c.PGVersion
	}
	if c.Set["fail-on"] && !changed("fail-on") {
		f.FailOn = c.FailOn
	}
	if !changed("rule") {
		f.Rules = append(f.Rules, c.Rules.Enable...)
	}
	f.Disable = append(f.Disable, c.Rules.Disable...)
	given := map[string]bool{}
	for _, kv := range f.Severity {
		id, _, _ := strings.Cut(kv, "=")
		given[id] = true
	}
	for id, level := range c.Rules.Severity {
		if !given[id] {
			f.Severity = append(f.Severity, id+"="+level)
		}
	}
}

// configDirectives turns the configuration's object ignores into
// suppression directives placed at their lines in the file.
func configDirectives(c *config.Config) []audit.Directive {
	if c == nil {
		return nil
	}
	var out []audit.Directive
	for _, ig := range c.Ignore {
		out = append(out, audit.Directive{
			Kind: audit.SuppressConfig, Rule: ig.Rule, Object: ig.Object, Reason: ig.Reason,
			Pos: catalog.Pos{File: c.Path, Line: ig.Line, Col: ig.Column},
		})
	}
	return out
}

// describeConfig is what -v says about the configuration file.
func describeConfig(c *config.Config) string {
	if c == nil {
		return "no " + config.FileName + " found"
	}
	return fmt.Sprintf("configuration %s (%s ignore entries)", c.Path, strconv.Itoa(len(c.Ignore)))
}
