package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/config"
)

// loadConfig reads --config, or the .idemcheck.yaml found by walking up from
// the working directory; nil when there is none. Every problem in it is a
// usage error naming the file and line.
func loadConfig(path string) (*config.Config, error) {
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
	if err := checkConfigRules(c); err != nil {
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

// checkConfigRules rejects rule ids nobody registered, at their line.
func checkConfigRules(c *config.Config) error {
	check := func(id string, line int) error {
		if audit.Lookup(id) == nil {
			return usageError("%s:%d: unknown rule %q (rules: %v)", c.Path, line, id, ruleIDs())
		}
		return nil
	}
	for id, line := range c.Rules.Line {
		if err := check(id, line); err != nil {
			return err
		}
	}
	for _, ig := range c.Ignore {
		if err := check(ig.Rule, ig.Line); err != nil {
			return err
		}
	}
	return nil
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
