package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// corpus is one real migration tree or schema dump to measure.
type corpus struct {
	Name string
	// Path is the local copy: a clone of the repository (Sub names the
	// tree inside it) or the tree itself.
	Path string
	Sub  string
	// Layout is given to lint as --layout; empty lets lint detect it.
	Layout string
	// Vars fill the placeholders of a templated tree (NAME=VALUE). psql
	// gets the rendered text; lint gets them as --var once it has the flag.
	Vars []string
	// Setup is a file of our own SQL (schemas, extensions the tree assumes
	// exist) replayed before the tree, by lint and by psql alike.
	Setup string
	// Roles are cluster roles the tree grants to or sets owners to. Those
	// missing are created NOLOGIN for the run and dropped after it.
	Roles []string
	// ORM, rails or prisma, makes the tree a schema file that lint reads
	// and the framework itself loads into the database (orm.go).
	ORM string
	// URL and Commit say where the judged copy came from (the manifest).
	URL, Commit string
}

// tree is the path lint is given and positions are relative to.
func (c *corpus) tree() string {
	if c.Sub == "" {
		return c.Path
	}
	return filepath.Join(c.Path, c.Sub)
}

// relative is a path lint printed, relative to the tree: what messages show
// and judgments key findings by. A tree that is one file (a dump) is shown
// by its base name.
func (c *corpus) relative(path string) string {
	if path == c.tree() {
		return filepath.Base(path)
	}
	return strings.TrimPrefix(path, c.tree()+"/")
}

// readManifest reads docs/corpora/corpora.tsv: name, repository URL,
// commit, options (as in a corpus argument after the path, or "-"). Blank
// lines and lines starting with # are skipped.
func readManifest(path string) ([]corpus, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []corpus
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 tab-separated fields (name, repository, commit, options), got %d", path, line, len(fields))
		}
		c := corpus{Name: fields[0], URL: fields[1], Commit: fields[2]}
		if seen[c.Name] {
			return nil, fmt.Errorf("%s:%d: corpus %q is listed twice", path, line, c.Name)
		}
		seen[c.Name] = true
		if fields[3] != "-" {
			if err := c.setOptions(strings.Split(fields[3], ",")); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// parseCorpusArg reads "name=path[,option...]". Options the argument does
// not give come from the manifest entry of the same name, if there is one.
func parseCorpusArg(arg string, manifest []corpus) (corpus, error) {
	parts := strings.Split(arg, ",")
	name, path, ok := strings.Cut(parts[0], "=")
	if !ok || name == "" || path == "" {
		return corpus{}, fmt.Errorf("corpus argument %q: want name=path[,layout=L][,sub=DIR][,var=NAME=VALUE][,setup=FILE][,roles=A+B]", arg)
	}
	c := corpus{Name: name}
	for _, m := range manifest {
		if m.Name == name {
			c = m
		}
	}
	c.Path = path
	var vars []string
	for _, p := range parts[1:] {
		if strings.HasPrefix(p, "var=") {
			vars = append(vars, strings.TrimPrefix(p, "var="))
		}
	}
	if len(vars) > 0 {
		c.Vars = nil // the argument's values replace the manifest's
	}
	if err := c.setOptions(parts[1:]); err != nil {
		return corpus{}, fmt.Errorf("corpus argument %q: %v", arg, err)
	}
	return c, nil
}

// setOptions applies key=value options; var adds one NAME=VALUE, roles are
// separated by "+".
func (c *corpus) setOptions(opts []string) error {
	for _, o := range opts {
		key, value, ok := strings.Cut(o, "=")
		if !ok {
			return fmt.Errorf("option %q: want key=value", o)
		}
		switch key {
		case "layout":
			c.Layout = value
		case "sub":
			c.Sub = value
		case "setup":
			c.Setup = value
		case "var":
			if !strings.Contains(value, "=") {
				return fmt.Errorf("option %q: want var=NAME=VALUE", o)
			}
			c.Vars = append(c.Vars, value)
		case "roles":
			c.Roles = strings.Split(value, "+")
		case "orm":
			if value != "rails" && value != "prisma" {
				return fmt.Errorf("option %q: want orm=rails or orm=prisma", o)
			}
			c.ORM = value
		default:
			return fmt.Errorf("unknown option %q (layout, sub, var, setup, roles, orm)", key)
		}
	}
	return nil
}
