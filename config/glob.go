package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Match reports whether file (a path as the user gave it) falls under the
// include and exclude globs: included when there are no include globs or
// one matches, and not excluded. Globs are relative to the configuration
// file's directory, use "/" and doublestar's syntax
// (github.com/bmatcuk/doublestar): "**" matches any number of directories,
// {a,b} either alternative, [abc] a character class.
func (c *Config) Match(file string) bool {
	if c == nil || len(c.Include) == 0 && len(c.Exclude) == 0 {
		return true
	}
	rel := c.relative(file)
	if len(c.Include) > 0 && !anyGlob(c.Include, rel) {
		return false
	}
	return !anyGlob(c.Exclude, rel)
}

// relative turns file into a slash path below the config's directory; a
// file outside it keeps its own path, so only globs written for it match.
func (c *Config) relative(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil || c.Dir == "" {
		return filepath.ToSlash(file)
	}
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return filepath.ToSlash(file)
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(file)
	}
	return filepath.ToSlash(rel)
}

func anyGlob(globs []string, p string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(strings.Trim(g, "/"), p); ok {
			return true
		}
	}
	return false
}

// checkGlob refuses a glob doublestar cannot use, so that a typo is an
// error when the config is read, not a glob that silently matches nothing.
func checkGlob(g string) error {
	if !doublestar.ValidatePattern(g) {
		return fmt.Errorf("a [ or { without its closing ] or }, or a trailing backslash")
	}
	return nil
}
