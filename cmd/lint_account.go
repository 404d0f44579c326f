package cmd

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/idemcheck/idemcheck/report"
	"github.com/idemcheck/idemcheck/sqlparse"

	"github.com/idemcheck/idemcheck/internal/humanize"
)

// The input account (issue 24): for each path lint was given, every file
// under it that could be schema, and what became of it. A path most of
// whose schema files went unread fails the run (exit 2) unless
// --allow-partial; a path of which nothing was replayed always does.

// accountSources is what the run read, for the account.
type accountSources struct {
	trees   []sqlparse.Tree
	schemas *schemaFiles
	// include is the configuration's include/exclude choice (nil: all).
	include func(string) bool
}

// placed is what became of one file, found in the run's trees.
type placed struct {
	tree  string
	order int
	skip  string // a layout's reason for leaving it out
}

// unreadListed is how many unread files an input error names.
const unreadListed = 5

// buildAccount makes the account of paths and the diagnostics it calls
// for: an error (or, with allowPartial, a note) for each path more of
// whose schema files went unread than were replayed, and a note for each
// test-fixture folder left out.
func buildAccount(paths []string, src accountSources, allowPartial bool) (*report.Account, []sqlparse.Diagnostic) {
	where := map[string]placed{}
	var treeFiles []struct{ path, root string }
	for _, t := range src.trees {
		for i, f := range t.Files {
			where[filepath.Clean(f.Path)] = placed{tree: t.Root, order: i + 1}
			treeFiles = append(treeFiles, struct{ path, root string }{f.Path, t.Root})
		}
		for _, s := range t.Skipped {
			if _, ok := where[filepath.Clean(s.Path)]; !ok {
				where[filepath.Clean(s.Path)] = placed{skip: s.Reason}
			}
		}
	}
	schema := map[string]placed{}
	if src.schemas != nil {
		for p, st := range src.schemas.status {
			schema[filepath.Clean(p)] = st
		}
	}
	acct := &report.Account{}
	var diags []sqlparse.Diagnostic
	for _, p := range paths {
		if p == "-" {
			acct.Paths = append(acct.Paths, report.AccountPath{Path: "<stdin>", Files: []report.AccountFile{
				{Path: "<stdin>", Status: report.Replayed, Tree: "<stdin>", Order: 1}}})
			continue
		}
		ap := report.AccountPath{Path: p}
		seen := map[string]bool{}
		fixtures := map[string]int{}
		var fixtureOrder []string
		for _, c := range sqlparse.Census(p) {
			key := filepath.Clean(c.Path)
			seen[key] = true
			f := classify(c, where[key], schema[key], src)
			if f.Kind == "test fixture" {
				if fixtures[c.Fixture] == 0 {
					fixtureOrder = append(fixtureOrder, c.Fixture)
				}
				fixtures[c.Fixture]++
			}
			ap.Files = append(ap.Files, f)
		}
		// A schema file named alone may have been read with the rest of
		// its schema (a multi-file Prisma schema).
		if _, ok := schema[filepath.Clean(p)]; ok && src.schemas != nil {
			for _, other := range src.schemas.groups[filepath.Clean(p)] {
				if key := filepath.Clean(other); !seen[key] {
					seen[key] = true
					o := schema[key]
					f := report.AccountFile{Path: other, Status: report.Replayed, Tree: o.tree, Order: o.order}
					if o.tree == "" {
						f = report.AccountFile{Path: other, Status: report.Skipped, Kind: "compared", Reason: o.skip}
					}
					ap.Files = append(ap.Files, f)
				}
			}
		}
		// Files a tree replayed that the census does not list (a
		// changelog's own changesets, a tree deeper than it looks).
		for _, tf := range treeFiles {
			if key := filepath.Clean(tf.path); !seen[key] && under(key, p) {
				seen[key] = true
				w := where[key]
				ap.Files = append(ap.Files, report.AccountFile{Path: tf.path, Status: report.Replayed, Tree: w.tree, Order: w.order})
			}
		}
		for _, fx := range fixtureOrder {
			diags = append(diags, sqlparse.Diagnostic{Level: sqlparse.Note, Message: fmt.Sprintf(
				"skipped %s: a test-fixture, example or template folder (%s); give it to lint directly to read it",
				fx, humanize.Count(fixtures[fx], "schema file", "schema files"))})
		}
		c := ap.Counts()
		if c.Unread > 0 && c.Unread > c.Replayed {
			ap.Partial = true
			level := sqlparse.Error
			if allowPartial && c.Replayed > 0 {
				level = sqlparse.Note
			}
			diags = append(diags, sqlparse.Diagnostic{Level: level, Message: partialMessage(ap, c, allowPartial && c.Replayed > 0)})
		}
		acct.Paths = append(acct.Paths, ap)
	}
	return acct, diags
}

// classify says what became of one schema-like file.
func classify(c sqlparse.Candidate, w placed, schema placed, src accountSources) report.AccountFile {
	f := report.AccountFile{Path: c.Path}
	skipped := func(kind, reason string) report.AccountFile {
		f.Status, f.Kind, f.Reason = report.Skipped, kind, reason
		return f
	}
	switch {
	case w.tree != "":
		f.Status, f.Tree, f.Order = report.Replayed, w.tree, w.order
		return f
	case schema.tree != "":
		f.Status, f.Tree, f.Order = report.Replayed, schema.tree, schema.order
		return f
	case schema.skip != "":
		return skipped("compared", schema.skip)
	case w.skip != "":
		return skipped(skipKind(w.skip), w.skip)
	case c.Kind == "manifest":
		dir := filepath.Dir(filepath.Clean(c.Path))
		for _, t := range src.trees {
			root := filepath.Clean(t.Root)
			if root != dir && !(t.Layout == sqlparse.LayoutTemporal && root == filepath.Dir(dir)) {
				continue
			}
			if why := manifestReason(filepath.Base(c.Path), t.Layout); why != "" {
				f = skipped("manifest", why)
				f.Tree = t.Root
				return f
			}
		}
	}
	switch {
	case src.include != nil && !src.include(c.Path):
		return skipped("excluded", "left out by the configuration's include/exclude globs")
	case c.Fixture != "":
		return skipped("test fixture", "in "+c.Fixture+", a test-fixture, example or template folder")
	case c.Definitions != "":
		return skipped("definitions", "a definition "+filepath.Join(c.Definitions, "schema.rb")+" refers to (scenic, fx), not a migration")
	case c.Kind == "sql" && !postgresDialect(c.Dialect):
		return skipped("other dialect", "a "+c.Dialect+" file, for another database")
	case c.NotApplied != "":
		return skipped("not applied", c.NotApplied)
	}
	if kind := downWord(filepath.Base(c.Path)); kind != "" {
		return skipped("down", "a "+kind+" migration")
	}
	if c.Kind == "sql" && !sqlparse.HasDDL(c.Path) {
		return skipped("no DDL", "no CREATE, ALTER or DROP: queries, not schema")
	}
	f.Status = report.Unread
	switch {
	case c.Depth > sqlparse.TreeDepth:
		f.Reason = fmt.Sprintf("%d folders down; lint looks for trees %d folders down", c.Depth, sqlparse.TreeDepth)
	case c.Kind == "prisma" || c.Kind == "rails":
		f.Reason = "a schema file lint did not read"
	default:
		f.Reason = "in no tree lint replayed"
	}
	return f
}

// manifestReason is what a layout's manifest named name is to the tree of
// layout l that holds it, or "" when it is not that layout's manifest.
// A manifest is never replayed itself (docs/layouts.md, "What lint reads").
func manifestReason(name string, l sqlparse.Layout) string {
	switch {
	case name == "sqitch.plan" && l == sqlparse.LayoutSqitch:
		return "sqitch's plan: read for the changes it deploys and their order, not replayed itself"
	case name == "manifest.json" && l == sqlparse.LayoutTemporal:
		return "temporal-sql-tool's manifest: read for its version's files and their order, not replayed itself"
	case name == "migration_lock.toml" && l == sqlparse.LayoutPrisma:
		return "Prisma's lock file (the provider): it marks the folder as Prisma's migrations; nothing in it is replayed"
	case strings.Contains(name, "changelog") && l == sqlparse.LayoutLiquibase:
		return "a Liquibase changelog that includes files: lint reads the formatted SQL changelogs themselves, in name order, not this file"
	}
	return ""
}

func postgresDialect(d string) bool {
	switch d {
	case "", "postgres", "postgresql", "pg", "pgsql", "psql":
		return true
	}
	return false
}

// downWord is "down", "undo", "rollback" or "revert" for a file named as
// one, lower case, "" otherwise.
func downWord(name string) string {
	lower := strings.ToLower(name)
	for _, w := range []string{"down", "undo", "rollback", "revert"} {
		if strings.Contains(lower, "."+w+".") || strings.Contains(lower, "_"+w+".") || strings.Contains(lower, "-"+w+".") ||
			strings.HasPrefix(lower, w+".") {
			return w
		}
	}
	return ""
}

// skipKind is a layout's reason for leaving a file out, in a word or two.
func skipKind(reason string) string {
	r := strings.ToLower(reason)
	switch {
	case strings.Contains(r, "down migration") || strings.Contains(r, "undo migration") ||
		strings.Contains(r, "rollback") || strings.Contains(r, "revert"):
		return "down"
	case strings.Contains(r, "has a postgres file") || strings.Contains(r, " migration") && !strings.Contains(r, "not "):
		return "other dialect"
	}
	return "not applied"
}

// under reports whether p is root or below it.
func under(p, root string) bool {
	root = filepath.Clean(root)
	return p == root || root == "." && !strings.HasPrefix(p, "..") && !filepath.IsAbs(p) ||
		strings.HasPrefix(p, root+string(filepath.Separator))
}

// partialMessage is the input error for a path most of whose schema files
// went unread: how many, the first few, and the ways to read them.
func partialMessage(ap report.AccountPath, c report.AccountCounts, accepted bool) string {
	var unread []string
	// Every folder between the path and an unread file counts it: the
	// folder to give is the deepest that holds the most of them (Synapse's
	// schema folder rather than one of its delta folders).
	dirs := map[string]int{}
	top := filepath.Clean(ap.Path)
	for _, f := range ap.Files {
		if f.Status == report.Unread {
			unread = append(unread, f.Path)
			for d := filepath.Dir(filepath.Clean(f.Path)); ; d = filepath.Dir(d) {
				if d == top || d == "." || d == string(filepath.Separator) || !under(d, top) {
					break
				}
				dirs[d]++
				if d == filepath.Dir(d) {
					break
				}
			}
		}
	}
	if len(dirs) == 0 {
		dirs[top] = len(unread)
	}
	list := strings.Join(unread[:min(len(unread), unreadListed)], ", ")
	if n := len(unread) - unreadListed; n > 0 {
		list += fmt.Sprintf(" and %d more", n)
	}
	head := fmt.Sprintf("%s: %d of its %d schema files were not read (%d replayed): %s",
		ap.Path, c.Unread, c.Unread+c.Replayed, c.Replayed, list)
	if accepted {
		return head + "; accepted by --allow-partial"
	}
	// The folder holding the most unread files is the one to give.
	best := ""
	depth := func(d string) int { return strings.Count(d, string(filepath.Separator)) }
	for d, n := range dirs {
		if best == "" || n > dirs[best] || n == dirs[best] && (depth(d) > depth(best) || depth(d) == depth(best) && d < best) {
			best = d
		}
	}
	way := fmt.Sprintf("give lint the folder that holds them (idemcheck lint %s)", best)
	if l := sqlparse.Detect(best); l != "" {
		way = fmt.Sprintf("give lint the folder that holds them (idemcheck lint %s, read as %s; --layout %s to say so)", best, l, l)
	}
	return head + "; to read them, " + way + ", or accept a partial read with --allow-partial (allow-partial: true in " +
		".idemcheck.yaml)"
}

// describeUnread is what -v says on stderr about the files the account
// lists as not read, one a line with the reason.
func describeUnread(w io.Writer, a *report.Account) error {
	if a == nil {
		return nil
	}
	for _, p := range a.Paths {
		for _, f := range p.Files {
			if f.Status != report.Unread {
				continue
			}
			if _, err := fmt.Fprintf(w, "not read: %s (%s)\n", f.Path, f.Reason); err != nil {
				return err
			}
		}
	}
	return nil
}
