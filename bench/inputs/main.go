// Command inputs runs idemcheck lint over real trees and sets what lint
// says it read beside what the project's own migration runner applies
// (issue 24: no silent pass). For each tree it prints the files lint
// replayed, skipped and left unread (from its JSON report), its exit
// status, and the files the runner applies, counted here from the runner's
// own rules (runners.go), not from lint, with those lint did not replay.
//
//	go run ./bench/inputs -root /work/corpora24            # every tree found under root
//	go run ./bench/inputs -root /work/corpora24 synapse    # some
//
// The trees are the corpora of docs/corpora.md (scripts/corpora-get.sh
// brings them, each at DIR/NAME) and the trees of issue 24 (their commits
// are in trees.go; bring each with git archive under DIR/NAME). Nothing of
// the projects is in this repository.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	root := flag.String("root", "/work/corpora24", "directory holding one tree per name")
	bin := flag.String("bin", "", "idemcheck binary (default: built from the working tree)")
	verbose := flag.Bool("v", false, "list the runner's files lint did not replay")
	flag.Parse()
	if err := run(*root, *bin, flag.Args(), *verbose, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "inputs:", err)
		os.Exit(1)
	}
}

func run(root, bin string, names []string, verbose bool, out, log io.Writer) error {
	if bin == "" {
		var err error
		if bin, err = build(); err != nil {
			return err
		}
	}
	fmt.Fprintln(out, "| tree | shape | lint path | exit | replayed | skipped | unread | runner applies | runner's files not replayed | replayed, not the runner's | schema-like files neither replayed nor accounted |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, t := range trees {
		if len(names) > 0 && !contains(names, t.name) {
			continue
		}
		dir := filepath.Join(root, t.name)
		if t.dir != "" {
			dir = filepath.Join(root, t.dir)
		}
		if _, err := os.Stat(filepath.Join(dir, t.path)); err != nil {
			fmt.Fprintf(out, "| %s | %s | `%s` | not on disk | | | | | | | |\n", t.name, t.shape, t.path)
			continue
		}
		fmt.Fprintf(log, "%s: lint %s\n", t.name, t.path)
		r, err := lint(bin, dir, t)
		if err != nil {
			return fmt.Errorf("%s: %v", t.name, err)
		}
		applied, notSQL, err := t.runner(filepath.Join(dir, t.path))
		if err != nil {
			return fmt.Errorf("%s: runner rule: %v", t.name, err)
		}
		var missed, extra []string
		runs := map[string]bool{}
		for _, f := range applied {
			runs[filepath.Join(t.path, f)] = true
			if !r.replayed[filepath.Join(t.path, f)] {
				missed = append(missed, f)
			}
		}
		for f := range r.replayed {
			if !runs[f] {
				extra = append(extra, f)
			}
		}
		sort.Strings(extra)
		applies := fmt.Sprint(len(applied))
		if notSQL > 0 {
			applies += fmt.Sprintf(" (+%d not SQL)", notSQL)
		}
		others, err := unaccounted(filepath.Join(dir, t.path), t.path, r)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "| %s | %s | `%s` | %d | %d | %s | %s | %s | %d | %d | %d |\n", t.name, t.shape, strings.Join(append(append([]string(nil), t.flags...), t.path), " "), r.exit,
			len(r.replayed), r.skipped, r.unread, applies, len(missed), len(extra), len(others))
		if verbose {
			for _, f := range firstN(missed, 10) {
				fmt.Fprintf(log, "  not replayed: %s\n", f)
			}
			for _, f := range firstN(extra, 10) {
				fmt.Fprintf(log, "  replayed, not the runner's: %s\n", f)
			}
			for _, f := range firstN(others, 10) {
				fmt.Fprintf(log, "  unaccounted: %s\n", f)
			}
		}
	}
	return nil
}

// lintResult is what one lint run said about its input.
type lintResult struct {
	exit     int
	replayed map[string]bool // files replayed, relative to the tree
	named    map[string]bool // every file the report names in its account
	skipped  string          // count, or "-" when the report has none
	byKind   map[string]int  // the account's skipped files per kind
	unread   string
}

// lint runs the binary on the tree's path from the tree's directory, so
// that the report's paths are relative to it.
func lint(bin, dir string, t tree) (*lintResult, error) {
	args := append([]string{"lint", "--format", "json"}, t.flags...)
	args = append(args, t.path)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := &lintResult{replayed: map[string]bool{}, named: map[string]bool{}, skipped: "-", unread: "-"}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.exit = exit.ExitCode()
	default:
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		return nil, fmt.Errorf("exit %d, no JSON report: %v\n%s", r.exit, err, firstLine(stderr.String()))
	}
	readAccount(doc, r)
	return r, nil
}

// readAccount takes the replayed files from inputs[].files and, from the
// input account when the report has one, the skipped and unread files:
// any field named skipped or unread, a count or a list, anywhere under
// inputs (the account's exact shape is the report's business; this
// harness only counts).
func readAccount(doc map[string]any, r *lintResult) {
	inputs, _ := doc["inputs"].([]any)
	var skipped, unread int
	var sawSkipped, sawUnread bool
	for _, in := range inputs {
		m, _ := in.(map[string]any)
		for _, f := range asList(m["files"]) {
			if s, ok := f.(string); ok {
				r.replayed[filepath.Clean(s)] = true
			}
		}
		walk(m, func(key string, v any) {
			n, names := countOf(v)
			switch key {
			case "skipped":
				skipped += n
				sawSkipped = true
			case "unread":
				unread += n
				sawUnread = true
			default:
				return
			}
			for _, s := range names {
				r.named[filepath.Clean(s)] = true
			}
		})
	}
	// The input account (issue 24): totals, and every file it lists under
	// its paths, whatever its status.
	if acc, ok := doc["input_account"].(map[string]any); ok {
		if n, ok := acc["skipped"].(float64); ok {
			skipped, sawSkipped = int(n), true
		}
		if n, ok := acc["unread"].(float64); ok {
			unread, sawUnread = int(n), true
		}
		if kinds, ok := acc["skipped_by_kind"].(map[string]any); ok {
			r.byKind = map[string]int{}
			for k, v := range kinds {
				if n, ok := v.(float64); ok {
					r.byKind[k] = int(n)
				}
			}
		}
		for _, p := range asList(acc["paths"]) {
			pm, _ := p.(map[string]any)
			for _, f := range asList(pm["files"]) {
				fm, _ := f.(map[string]any)
				if path, ok := fm["path"].(string); ok {
					r.named[filepath.Clean(path)] = true
				}
			}
		}
	}
	// Before the account, a skipped file was named only in a note
	// ("skipped PATH: reason").
	for _, d := range append(asList(doc["notes"]), asList(doc["diagnostics"])...) {
		m, _ := d.(map[string]any)
		msg, _ := m["message"].(string)
		if rest, ok := strings.CutPrefix(msg, "skipped "); ok {
			if path, _, ok := strings.Cut(rest, ": "); ok {
				r.named[filepath.Clean(path)] = true
			}
		}
	}
	if sawSkipped {
		r.skipped = fmt.Sprint(skipped)
		if len(r.byKind) > 0 {
			kinds := make([]string, 0, len(r.byKind))
			for k := range r.byKind {
				kinds = append(kinds, k)
			}
			sort.Slice(kinds, func(i, j int) bool {
				if r.byKind[kinds[i]] != r.byKind[kinds[j]] {
					return r.byKind[kinds[i]] > r.byKind[kinds[j]]
				}
				return kinds[i] < kinds[j]
			})
			parts := make([]string, len(kinds))
			for i, k := range kinds {
				parts[i] = fmt.Sprintf("%d %s", r.byKind[k], k)
			}
			r.skipped += " (" + strings.Join(parts, ", ") + ")"
		}
	}
	if sawUnread {
		r.unread = fmt.Sprint(unread)
	}
}

// walk calls fn on every key of every object under v.
func walk(v any, fn func(string, any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			fn(k, e)
			walk(e, fn)
		}
	case []any:
		for _, e := range x {
			walk(e, fn)
		}
	}
}

// countOf reads a count: a number, or a list (of paths, or of objects
// with a path).
func countOf(v any) (int, []string) {
	switch x := v.(type) {
	case float64:
		return int(x), nil
	case []any:
		var names []string
		for _, e := range x {
			switch y := e.(type) {
			case string:
				names = append(names, y)
			case map[string]any:
				if p, ok := y["path"].(string); ok {
					names = append(names, p)
				}
			}
		}
		return len(x), names
	}
	return 0, nil
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// unaccounted lists the schema-like files under path (as issue 24 defines
// them) that lint neither replayed nor named in its account.
func unaccounted(abs, rel string, r *lintResult) ([]string, error) {
	var out []string
	err := filepath.WalkDir(abs, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "vendor":
				return filepath.SkipDir
			}
			return nil
		}
		if !schemaLike(d.Name()) {
			return nil
		}
		sub, _ := filepath.Rel(abs, p)
		shown := filepath.Join(rel, sub)
		if r.replayed[shown] || r.named[shown] {
			return nil
		}
		out = append(out, shown)
		return nil
	})
	sort.Strings(out)
	return out, err
}

// schemaLike is issue 24's "could be schema": .sql and .sql.<dialect>,
// schema.rb, structure.sql, .prisma, and the layouts' manifests.
func schemaLike(name string) bool {
	switch name {
	case "schema.rb", "sqitch.plan", "manifest.json", "migration_lock.toml", "atlas.sum":
		return true
	}
	return strings.HasSuffix(name, ".sql") || strings.Contains(name, ".sql.") || strings.HasSuffix(name, ".prisma")
}

func build() (string, error) {
	if _, err := os.Stat("go.mod"); err != nil {
		return "", errors.New("run from the repository root: go run ./bench/inputs")
	}
	dir, err := os.MkdirTemp("", "idemcheck-inputs")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "idemcheck")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Stderr = os.Stderr
	return bin, cmd.Run()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func firstN(list []string, n int) []string {
	if len(list) > n {
		return list[:n]
	}
	return list
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
