package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/pipeline"
	"github.com/idemcheck/idemcheck/report"
	"github.com/idemcheck/idemcheck/sqlparse"

	"github.com/idemcheck/idemcheck/internal/humanize"
)

func init() { register(newLintCmd) }

// lintOptions is everything `idemcheck lint` was asked to do, checked.
type lintOptions struct {
	Paths   []string
	Queries []string // query files (sqlc and the like) holding INSERT ... ON CONFLICT
	Layout  sqlparse.Layout
	Format  string
	FailOn  pipeline.Threshold
	// MinSeverity is the lowest severity printed.
	MinSeverity audit.Severity
	PGVersion   int
	Rules       []*audit.Rule
	Severities  map[string]audit.Severity
	Color       bool
	Verbose     bool
	// Config is the configuration file read, nil when there is none.
	Config *config.Config
	// FixSQL is where --fix-sql writes, "" for nowhere.
	FixSQL string
	// Vars fill template placeholders (--var, vars: in the configuration);
	// nil when none were given.
	Vars sqlparse.Vars
	// New hides what is not new (--new-from-rev, --baseline) and writes
	// --write-baseline; nil hides nothing.
	New *newFindingsFilter
	// Prove runs the witnesses (--prove); nil without it.
	Prove *prover
	// AllowPartial accepts a path most of whose schema files go unread
	// (--allow-partial, allow-partial: in the configuration).
	AllowPartial bool
}

func newLintCmd(s *Streams) *cobra.Command {
	var flags auditFlags
	var newFlags newFindingsFlags
	var proveF proveFlags
	var layout string
	var allowPartial bool
	var queries, vars []string
	c := &cobra.Command{
		Use:   "lint PATH...",
		Short: "Check migration trees, single files and schema dumps ('-' reads stdin)",
		Long: `lint replays migration trees (golang-migrate, goose, dbmate, sql-migrate,
tern, Flyway, Liquibase, diesel/sqlx/refinery, Prisma, sqitch, Temporal's
versioned folders, Synapse's full schemas and deltas, plain directories;
detected, or named with --layout),
single SQL files, schema dumps, Rails db/schema.rb and Prisma schemas into a
model of the database, and reports the unique indexes that do not stop
duplicates. Beside SQL migrations a schema.rb or schema.prisma is only
compared with them. '-' reads one file from stdin. Template placeholders
({{ .Name }}, ${name}, psql :name) are filled from --var NAME=VALUE, or
stood in for with a note.

Exit status: 0 when nothing reaches --fail-on, 1 when a finding does, 2 when
the input could not be read or parsed (every other file is still checked), or
when the paths yield no statement to check.`,
		Example: `  idemcheck lint testdata/examples/payments
  idemcheck lint --format sarif testdata/examples/payments > idemcheck.sarif
  idemcheck lint --new-from-rev origin/main testdata/examples/payments
  idemcheck lint --rule nullable-key --fail-on error schema.sql
  pg_dump --schema-only "$DATABASE_URL" | idemcheck lint -`,
		RunE: func(c *cobra.Command, args []string) error {
			cfg, err := loadConfig(flags.Config, s)
			if err != nil {
				return err
			}
			flags.applyConfig(cfg, c.Flags().Changed)
			if cfg != nil && cfg.Set["layout"] && !c.Flags().Changed("layout") {
				layout = cfg.Layout
			}
			opts, err := lintOptionsFrom(args, layout, &flags, s)
			if err != nil {
				return err
			}
			opts.Queries = queries
			opts.Config = cfg
			opts.AllowPartial = allowPartial || cfg != nil && cfg.AllowPartial && !c.Flags().Changed("allow-partial")
			if opts.Vars, err = templateVars(cfg, vars); err != nil {
				return err
			}
			if opts.New, err = newFlags.prepare(c.Context()); err != nil {
				return err
			}
			if opts.Prove, err = proveF.prepare(s, opts.PGVersion, "--pg-version"); err != nil {
				return err
			}
			return runLint(c.Context(), opts, s)
		},
	}
	flags.addTo(c)
	newFlags.addTo(c, true)
	proveF.addTo(c)
	c.Flags().StringVar(&layout, "layout", "", "migration layout, instead of detecting it (golang-migrate, goose, flyway, ...)")
	c.Flags().BoolVar(&allowPartial, "allow-partial", false, "accept a path most of whose schema files are not read (a note instead of exit 2)")
	c.Flags().StringArrayVar(&queries, "queries", nil, "query files or directories (sqlc queries, ...) whose INSERT ... ON CONFLICT statements are checked; repeatable")
	layouts := make([]string, 0)
	for _, l := range sqlparse.Layouts() {
		layouts = append(layouts, string(l))
	}
	completeWords(c, "layout", layouts)
	c.Flags().StringArrayVar(&vars, "var", nil, "NAME=VALUE for template placeholders ({{ .NAME }}, ${NAME}, psql :NAME); repeatable")
	return c
}

// templateVars merges the configuration's vars: with --var, which wins;
// nil when neither gave any, so that placeholders get stand-ins.
func templateVars(cfg *config.Config, flags []string) (sqlparse.Vars, error) {
	var vars sqlparse.Vars
	if cfg != nil && len(cfg.Vars) > 0 {
		vars = sqlparse.Vars{}
		for k, v := range cfg.Vars {
			vars[k] = v
		}
	}
	for _, kv := range flags {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, usageError("--var %q: want NAME=VALUE, for example --var Namespace=auth", kv)
		}
		if vars == nil {
			vars = sqlparse.Vars{}
		}
		vars[name] = value
	}
	return vars, nil
}

// lintOptionsFrom checks the arguments and flags; every problem is a usage
// error.
func lintOptionsFrom(args []string, layout string, f *auditFlags, s *Streams) (*lintOptions, error) {
	if len(args) == 0 {
		return nil, usageError("lint needs at least one path: a migration directory, a .sql file, or - for stdin (for example: idemcheck lint db/migrations)")
	}
	opts := &lintOptions{Paths: args, Format: f.Format, PGVersion: f.PGVersion, Verbose: f.Verbose, FixSQL: f.FixSQL}
	var err error
	if opts.Layout, err = sqlparse.ParseLayout(layout); err != nil {
		return nil, usageError("--layout: %v", err)
	}
	st, err := f.settings(s, true, nil)
	if err != nil {
		return nil, err
	}
	opts.FailOn, opts.MinSeverity, opts.Rules, opts.Severities, opts.Color = st.FailOn, st.MinSeverity, st.Rules, st.Severities, st.Color
	return opts, nil
}

// runLint loads and replays the paths, runs the rules and prints the report.
// Input errors do not stop the run: every readable file is still checked and
// printed, and the exit status is then 2 (ExitUsage); otherwise it is 1 when
// a finding reaches --fail-on.
func runLint(ctx context.Context, opts *lintOptions, s *Streams) error {
	// The collector's settings follow the live heap (gcpolicy.go).
	defer lintGC()()
	start := time.Now()
	cat := catalog.New()
	replayer := sqlparse.NewReplayer(cat)
	perFile := map[string]int{}
	spans := map[string][]audit.Span{}
	applyParsed := func(p *sqlparse.Parsed) []sqlparse.Diagnostic {
		st := p.Statement
		perFile[st.File]++
		spans[st.File] = append(spans[st.File], audit.Span{Start: st.Pos, End: st.PosAt(len(st.Text))})
		return replayer.ApplyParsed(p)
	}
	apply := func(st sqlparse.Statement) []sqlparse.Diagnostic { return applyParsed(sqlparse.Parse(st)) }
	// Rails' db/schema.rb and Prisma schemas are read by package
	// frameworks, after the SQL, which wins where both describe a database.
	sqlPaths, schemas := findSchemaFiles(opts.Paths)
	// The configuration's include and exclude globs choose files before
	// they are read: an excluded file is neither counted nor checked.
	loaded := sqlparse.Load(sqlPaths, sqlparse.LoadOptions{Layout: opts.Layout, Stdin: s.In, Apply: applyParsed, Include: opts.Config.Match, Vars: opts.Vars})
	schemas.load(cat, loaded.Trees, apply)
	loaded.Diagnostics = append(loaded.Diagnostics, schemas.diags...)
	account, accountDiags := buildAccount(opts.Paths, accountSources{trees: loaded.Trees, schemas: schemas, include: opts.Config.Match}, opts.AllowPartial)
	loaded.Diagnostics = append(loaded.Diagnostics, accountDiags...)
	loaded.Files += schemas.files()
	loaded.Statements += schemas.statements()
	if len(opts.Queries) > 0 {
		// Query files hold DML, not a migration layout: read them as plain
		// SQL, after the schema they query.
		appendLoad(loaded, sqlparse.Load(opts.Queries, sqlparse.LoadOptions{Layout: sqlparse.LayoutPlain, Apply: applyParsed, Vars: opts.Vars}))
	}
	directives := append(lintDirectives(loaded, spans, opts), schemas.directives()...)
	warnUnknownDirectiveRules(directives, s)
	res, err := pipeline.Run(pipeline.Input{
		Catalog:     cat,
		History:     replayer.History(),
		Directives:  directives,
		Inputs:      append(lintInputs(loaded.Trees, perFile), schemas.inputs...),
		Diagnostics: reportDiagnostics(loaded.Diagnostics),
		Summary: report.Summary{Files: loaded.Files, Statements: loaded.Statements,
			SkippedFiles: loaded.SkippedFiles, SkippedStatements: loaded.SkippedStatements},
		Account: account,
	}, pipeline.Options{
		Rules:       opts.Rules,
		Audit:       audit.Options{PGVersion: opts.PGVersion},
		Severities:  opts.Severities,
		MinSeverity: opts.MinSeverity,
		Amend:       func(findings []audit.Finding) { schemas.addFixes(findings, cat, opts.PGVersion) },
		Prove:       opts.Prove.hook(ctx),
		New:         opts.New.options("lint"),
		Version:     toolVersion(),
		Start:       start,
	})
	if err != nil {
		return usageError("%v", err)
	}
	opts.New.reportWritten(res, s)
	if opts.Verbose {
		opts.New.describe(s)
		if _, err := fmt.Fprintln(s.Err, describeConfig(opts.Config)); err != nil {
			return err
		}
		if err := describeInputs(s.Err, res.Doc.Inputs); err != nil {
			return err
		}
		if err := describeUnread(s.Err, res.Doc.Account); err != nil {
			return err
		}
	}
	if err := writeReport(s.Out, res, opts.Format, report.Options{Color: opts.Color, Verbose: opts.Verbose, Width: s.textWidth()}); err != nil {
		return err
	}
	if opts.FixSQL != "" {
		if err := writeFixSQL(opts.FixSQL, res.Findings(), loaded.Trees, opts.Layout, s); err != nil {
			return err
		}
	}
	if res.InputErrors() {
		return exitWith(ExitUsage)
	}
	if res.Fails(opts.FailOn) {
		return exitWith(ExitFindings)
	}
	return nil
}

// appendLoad adds what the query files' load read to the migrations' load,
// so that both are reported as inputs.
func appendLoad(to, from *sqlparse.LoadResult) {
	to.Trees = append(to.Trees, from.Trees...)
	to.Files += from.Files
	to.Statements += from.Statements
	to.SkippedFiles += from.SkippedFiles
	to.SkippedStatements += from.SkippedStatements
	to.Diagnostics = append(to.Diagnostics, from.Diagnostics...)
	for path, comments := range from.Comments {
		to.Comments[path] = append(to.Comments[path], comments...)
	}
}

// lintDirectives reads the ignore directives of every file that was
// replayed, and adds the configuration file's object ignores.
func lintDirectives(loaded *sqlparse.LoadResult, spans map[string][]audit.Span, opts *lintOptions) []audit.Directive {
	files := make([]string, 0, len(loaded.Comments))
	for file := range loaded.Comments {
		files = append(files, file)
	}
	sort.Strings(files)
	var out []audit.Directive
	for _, file := range files {
		var comments []audit.SourceComment
		for _, c := range loaded.Comments[file] {
			comments = append(comments, audit.SourceComment{Text: c.Text, Pos: c.Pos})
		}
		out = append(out, audit.FileDirectives(comments, spans[file])...)
	}
	return append(out, configDirectives(opts.Config)...)
}

// writeReport writes res's report in the named format. SARIF and GitLab
// name files from the repository root, found from the working directory.
func writeReport(w io.Writer, res *pipeline.Result, format string, opts report.Options) error {
	opts.Paths.Root, opts.Paths.Prefix = repoRoot()
	if format == "github" {
		// On a GitHub runner the findings table also goes to the job's
		// summary page.
		opts.StepSummary = os.Getenv("GITHUB_STEP_SUMMARY")
	}
	return res.Write(w, format, opts)
}

// lintInputs describes each tree that was read; statements are counted per
// file as they are replayed, since only the loader knows which tree a file
// belongs to.
func lintInputs(trees []sqlparse.Tree, perFile map[string]int) []report.Input {
	inputs := make([]report.Input, 0, len(trees))
	for _, t := range trees {
		in := report.Input{Path: t.Root, Layout: string(t.Layout), Skipped: len(t.Skipped)}
		for _, f := range t.Files {
			in.Files = append(in.Files, f.Path)
			in.Statements += perFile[f.Path]
		}
		inputs = append(inputs, in)
	}
	return inputs
}

// describeInputs is what -v says on stderr about each tree: the layout
// detected, the files used, the files skipped (each has a note) and the
// statements.
func describeInputs(w io.Writer, inputs []report.Input) error {
	for _, in := range inputs {
		if _, err := fmt.Fprintf(w, "%s: layout %s, %s used, %s skipped, %s\n", in.Path, in.Layout,
			humanize.Count(len(in.Files), "file", "files"), humanize.Count(in.Skipped, "file", "files"), humanize.Count(in.Statements, "statement", "statements")); err != nil {
			return err
		}
		for _, f := range in.Files {
			if _, err := fmt.Fprintf(w, "  %s\n", f); err != nil {
				return err
			}
		}
	}
	return nil
}

// reportDiagnostics converts the loader's and replayer's diagnostics for the
// report package, which does not import sqlparse.
func reportDiagnostics(ds []sqlparse.Diagnostic) []report.Diagnostic {
	out := make([]report.Diagnostic, 0, len(ds))
	for _, d := range ds {
		level := report.LevelNote
		if d.Level == sqlparse.Error {
			level = report.LevelError
		}
		out = append(out, report.Diagnostic{Level: level, Pos: d.Pos, SQLState: d.SQLState, Message: d.Message})
	}
	return out
}

// repoRoot finds the repository root (the nearest parent of the working
// directory holding .git) and the working directory relative to it, so that
// SARIF paths are relative to the root as code scanning wants. Outside a
// repository the working directory stands in for the root.
func repoRoot() (root, prefix string) {
	wd, err := os.Getwd()
	if err != nil {
		return "", ""
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				rel = ""
			}
			return filepath.ToSlash(dir), filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.ToSlash(wd), ""
		}
		dir = parent
	}
}
