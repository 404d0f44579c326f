// Package config reads idemcheck's configuration file, .idemcheck.yaml:
// layout, target PostgreSQL version, exit threshold, rule selection and
// severities, object-level ignores with reasons, and path globs to include
// or exclude. Every problem is an error naming the file and line.
//
// Only cmd imports it. It reads the file it is given or finds it by walking
// up from a directory; it never prints, and the command line overrides what
// it says.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileName is the configuration file looked for in the working directory
// and its parents.
const FileName = ".idemcheck.yaml"

// Config is a parsed configuration file. Fields left out of the file are
// zero; Set says which were given.
type Config struct {
	// Path is the file that was read; Dir is its directory, which include
	// and exclude globs are relative to.
	Path, Dir string

	Layout    string
	PGVersion int
	FailOn    string
	Rules     Rules
	Ignore    []Ignore
	Include   []string
	Exclude   []string
	// Vars fill template placeholders, like --var.
	Vars map[string]string
	// AllowPartial is allow-partial: true, like lint --allow-partial: a
	// path most of whose schema files go unread is a note, not an error.
	AllowPartial bool

	// Set holds the top-level keys the file gave.
	Set map[string]bool
}

// Rules selects and re-ranks rules, like --rule, --disable and --severity.
type Rules struct {
	Enable   []string
	Disable  []string
	Severity map[string]string
	// Line is where each rule id was named, for errors about it.
	Line map[string]int
}

// Ignore silences one rule on one object (inspect has no files to comment).
type Ignore struct {
	Object string
	Rule   string
	Reason string
	Line   int
	Column int
}

// Error is a problem in the configuration file, at a line.
type Error struct {
	Path string
	Line int
	Col  int
	Msg  string

	// atKey asks the mapping that holds the key to put its line in: an
	// unknown key is reported where the key is written, not its value.
	atKey bool
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// Find looks for FileName in dir and its parents and returns its path, or ""
// when there is none.
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, FileName)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// Load reads and checks the configuration file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("configuration file: %w", err)
	}
	c, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	c.Dir = filepath.Dir(path)
	return c, nil
}

// Parse checks data, the content of the file at path. It walks the YAML
// node tree rather than decoding into a struct, so that every unknown key
// and bad value is reported at its own line.
func Parse(path string, data []byte) (*Config, error) {
	c := &Config{Path: path, Set: map[string]bool{}}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil // an empty file configures nothing
		}
		return nil, &Error{Path: path, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	p := parser{path: path}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil
	}
	if err := p.mapping(root, "the configuration", func(key string, v *yaml.Node) error {
		c.Set[key] = true
		return p.topLevel(c, key, v)
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Known values, checked here so that a typo is reported at its line rather
// than later by the command with no line to name.
var (
	failOnValues   = []string{"error", "warning", "info", "none"}
	severityValues = []string{"error", "warning", "info"}
)

const minPGVersion, maxPGVersion = 13, 18

type parser struct{ path string }

func (p parser) errorf(n *yaml.Node, format string, args ...any) error {
	return &Error{Path: p.path, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
}

// unknownKey is the error for a key nobody defined, placed at the key.
func (p parser) unknownKey(v *yaml.Node, format string, args ...any) error {
	err := p.errorf(v, format, args...).(*Error)
	err.atKey = true
	return err
}

func (p parser) topLevel(c *Config, key string, v *yaml.Node) error {
	var err error
	switch key {
	case "layout":
		c.Layout, err = p.str(v, key)
	case "pg-version":
		c.PGVersion, err = p.pgVersion(v)
	case "fail-on":
		c.FailOn, err = p.oneOf(v, key, failOnValues)
	case "rules":
		c.Rules, err = p.rules(v)
	case "ignore":
		c.Ignore, err = p.ignores(v)
	case "include":
		c.Include, err = p.globs(v, key)
	case "exclude":
		c.Exclude, err = p.globs(v, key)
	case "vars":
		c.Vars, err = p.vars(v)
	case "allow-partial":
		c.AllowPartial, err = p.boolean(v, key)
	default:
		return p.unknownKey(v, "unknown key %q (known: layout, pg-version, fail-on, rules, ignore, include, exclude, vars, allow-partial)", key)
	}
	return err
}

// vars reads the values of template placeholders: a mapping of names to
// scalars, which are used as written (a number stays its digits).
func (p parser) vars(n *yaml.Node) (map[string]string, error) {
	out := map[string]string{}
	err := p.mapping(n, "vars", func(name string, v *yaml.Node) error {
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return p.errorf(v, "vars.%s must be a value, such as %s: auth", name, name)
		}
		out[name] = v.Value
		return nil
	})
	return out, err
}

// mapping calls each for every key of a mapping node, rejecting duplicate
// keys and keys that are not strings.
func (p parser) mapping(n *yaml.Node, what string, each func(key string, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return p.errorf(n, "%s must be a mapping of keys to values", what)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return p.errorf(k, "a key in %s must be a plain word", what)
		}
		if seen[k.Value] {
			return p.errorf(k, "%q is given twice", k.Value)
		}
		seen[k.Value] = true
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		// Unknown keys are reported at the key's own line.
		if err := each(k.Value, v); err != nil {
			var ce *Error
			if errors.As(err, &ce) && ce.atKey {
				ce.Line, ce.Col, ce.atKey = k.Line, k.Column, false
			}
			return err
		}
	}
	return nil
}

func (p parser) str(n *yaml.Node, key string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Value == "" {
		return "", p.errorf(n, "%s must be a word, such as %s: golang-migrate", key, key)
	}
	return n.Value, nil
}

func (p parser) boolean(n *yaml.Node, key string) (bool, error) {
	var b bool
	if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
		return false, p.errorf(n, "%s must be true or false", key)
	}
	return b, nil
}

func (p parser) oneOf(n *yaml.Node, key string, values []string) (string, error) {
	s, err := p.str(n, key)
	if err != nil {
		return "", err
	}
	for _, v := range values {
		if s == v {
			return s, nil
		}
	}
	return "", p.errorf(n, "%s: unknown value %q (want %s)", key, s, strings.Join(values, ", "))
}

func (p parser) pgVersion(n *yaml.Node) (int, error) {
	var v int
	if n.Kind != yaml.ScalarNode || n.Decode(&v) != nil || v < minPGVersion || v > maxPGVersion {
		return 0, p.errorf(n, "pg-version must be a PostgreSQL major version from %d to %d, not %q", minPGVersion, maxPGVersion, n.Value)
	}
	return v, nil
}

func (p parser) list(n *yaml.Node, key string) ([]*yaml.Node, error) {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []*yaml.Node{n}, nil // one value written without brackets
	}
	if n.Kind != yaml.SequenceNode {
		return nil, p.errorf(n, "%s must be a list", key)
	}
	return n.Content, nil
}

func (p parser) globs(n *yaml.Node, key string) ([]string, error) {
	items, err := p.list(n, key)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range items {
		s, err := p.str(it, key)
		if err != nil {
			return nil, err
		}
		if err := checkGlob(s); err != nil {
			return nil, p.errorf(it, "%s: bad glob %q: %v", key, s, err)
		}
		out = append(out, s)
	}
	return out, nil
}

func (p parser) rules(n *yaml.Node) (Rules, error) {
	r := Rules{Severity: map[string]string{}, Line: map[string]int{}}
	err := p.mapping(n, "rules", func(key string, v *yaml.Node) error {
		switch key {
		case "enable", "disable":
			items, err := p.list(v, "rules."+key)
			if err != nil {
				return err
			}
			for _, it := range items {
				id, err := p.str(it, "rules."+key)
				if err != nil {
					return err
				}
				r.Line[id] = it.Line
				if key == "enable" {
					r.Enable = append(r.Enable, id)
				} else {
					r.Disable = append(r.Disable, id)
				}
			}
			return nil
		case "severity":
			return p.mapping(v, "rules.severity", func(id string, lv *yaml.Node) error {
				s, err := p.oneOf(lv, "rules.severity."+id, severityValues)
				r.Severity[id] = s
				r.Line[id] = lv.Line
				return err
			})
		}
		return p.unknownKey(v, "unknown key %q in rules (known: enable, disable, severity)", key)
	})
	return r, err
}

func (p parser) ignores(n *yaml.Node) ([]Ignore, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.errorf(n, "ignore must be a list of entries with object, rule and reason")
	}
	var out []Ignore
	for _, item := range n.Content {
		ig := Ignore{Line: item.Line, Column: item.Column}
		err := p.mapping(item, "an ignore entry", func(key string, v *yaml.Node) error {
			var err error
			switch key {
			case "object":
				ig.Object, err = p.str(v, "ignore.object")
			case "rule":
				ig.Rule, err = p.str(v, "ignore.rule")
			case "reason":
				ig.Reason, err = p.str(v, "ignore.reason")
			default:
				err = p.unknownKey(v, "unknown key %q in an ignore entry (known: object, rule, reason)", key)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		switch {
		case ig.Object == "":
			return nil, p.errorf(item, "an ignore entry needs object: schema.table.index")
		case ig.Rule == "":
			return nil, p.errorf(item, "the ignore entry for %s needs rule: RULE", ig.Object)
		case strings.TrimSpace(ig.Reason) == "":
			return nil, p.errorf(item, "the ignore entry for %s needs a reason: say why this is intended", ig.Object)
		}
		out = append(out, ig)
	}
	return out, nil
}
