package config

import (
	"path"
	"path/filepath"
	"strings"
)

// Match reports whether file (a path as the user gave it) falls under the
// include and exclude globs: included when there are no include globs or
// one matches, and not excluded. Globs are relative to the configuration
// file's directory, use "/" and path.Match syntax, and "**" matches any
// number of directories.
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
		if matchGlob(strings.Split(strings.Trim(g, "/"), "/"), strings.Split(p, "/")) {
			return true
		}
	}
	return false
}

// matchGlob matches path segments against glob segments, "**" standing for
// zero or more segments.
func matchGlob(glob, segs []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchGlob(glob[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(glob[0], segs[0]); !ok {
			return false
		}
		glob, segs = glob[1:], segs[1:]
	}
	return len(segs) == 0
}

func checkGlob(g string) error {
	for _, seg := range strings.Split(g, "/") {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return err
		}
	}
	return nil
}
