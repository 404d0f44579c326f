package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/inspect"
	"github.com/idemcheck/idemcheck/report"
)

func init() { register(newInspectCmd) }

// inspectOptions are the inspect command's flags.
type inspectOptions struct {
	audit   auditFlags
	DSN     string
	Schemas []string
	Tables  []string
	Timeout time.Duration
	Data    bool
	// pgVersionSet is true when --pg-version was given: it then overrides
	// the server's own version for fixes.
	pgVersionSet bool
	// config is the .idemcheck.yaml in force, nil when there is none; its
	// ignore entries name objects, which is how inspect findings are
	// suppressed.
	config *config.Config
	// newFlags are --baseline and --write-baseline.
	newFlags newFindingsFlags
}

func newInspectCmd(s *Streams) *cobra.Command {
	opts := &inspectOptions{}
	c := &cobra.Command{
		Use:   "inspect [--dsn DSN]",
		Short: "Audit a live PostgreSQL database, read-only",
		Long: `inspect reads the catalog of a running PostgreSQL database (12 or later) in one
read-only transaction and runs the same rules as lint, plus invalid-unique-index.

Connection settings follow libpq: --dsn (a postgres:// URL or key=value
settings), else DATABASE_URL, else the PG* environment variables, ~/.pgpass
and service files. With --data it also counts, for each finding, the rows that
hold NULL in the key and the groups of rows that already collide.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := loadConfig(opts.audit.Config)
			if err != nil {
				return err
			}
			opts.audit.applyConfig(cfg, c.Flags().Changed)
			opts.config = cfg
			opts.pgVersionSet = c.Flags().Changed("pg-version") || (cfg != nil && cfg.Set["pg-version"])
			return runInspect(c.Context(), opts, s)
		},
	}
	opts.audit.addTo(c)
	opts.newFlags.addTo(c, false)
	fl := c.Flags()
	fl.StringVar(&opts.DSN, "dsn", "", "connection string: postgres:// URL or key=value (default DATABASE_URL, then PG* variables)")
	fl.StringArrayVar(&opts.Schemas, "schema", nil, "audit only schemas matching this glob (repeatable)")
	fl.StringArrayVar(&opts.Tables, "table", nil, "audit only tables matching this glob, or schema.table glob (repeatable)")
	fl.DurationVar(&opts.Timeout, "timeout", inspect.DefaultTimeout, "statement and lock timeout for every query, and the connection timeout")
	fl.BoolVar(&opts.Data, "data", false, "also count NULL keys and colliding rows (reads table data)")
	return c
}

// inspectSettings are the flags checked and turned into typed values.
type inspectSettings struct {
	rules       []*audit.Rule
	severities  map[string]audit.Severity
	threshold   failThreshold
	minSeverity audit.Severity
	color       bool
	filter      inspect.Filter
}

func (o *inspectOptions) settings(s *Streams) (inspectSettings, error) {
	var st inspectSettings
	var err error
	if err = o.audit.checkFormat(); err != nil {
		return st, err
	}
	if o.pgVersionSet {
		if err = o.audit.checkPGVersion(); err != nil {
			return st, err
		}
	}
	if o.audit.FixSQL != "" {
		if info, err := os.Stat(o.audit.FixSQL); err == nil && info.IsDir() {
			return st, usageError("--fix-sql %s: inspect writes one file of fixes; a migration directory is for lint", o.audit.FixSQL)
		}
	}
	if o.Timeout <= 0 {
		return st, usageError("--timeout must be positive, got %s", o.Timeout)
	}
	if st.threshold, err = o.audit.failThreshold(); err != nil {
		return st, err
	}
	if st.minSeverity, err = o.audit.minSeverity(); err != nil {
		return st, err
	}
	if st.rules, err = o.audit.selectRules(); err != nil {
		return st, err
	}
	if st.severities, err = o.audit.severityOverrides(); err != nil {
		return st, err
	}
	if st.color, err = o.audit.useColor(s); err != nil {
		return st, err
	}
	st.filter = inspect.Filter{Schemas: o.Schemas, Tables: o.Tables}
	if err = st.filter.Validate(); err != nil {
		return st, usageError("%v", err)
	}
	return st, nil
}

// runInspect connects, reads the catalog, runs the rules (and the data
// checks), prints the report and says which exit status the result deserves.
func runInspect(ctx context.Context, o *inspectOptions, s *Streams) error {
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	st, err := o.settings(s)
	if err != nil {
		return err
	}
	newFilter, err := o.newFlags.prepare(ctx)
	if err != nil {
		return err
	}
	sess, err := inspect.Open(ctx, inspect.Config{DSN: o.DSN, Getenv: s.Getenv, Timeout: o.Timeout})
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	defer sess.Close(context.Background())
	snap, err := sess.ReadCatalog(ctx, st.filter)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	// A pattern that matches nothing is a typo, not a clean database.
	if len(snap.Unmatched) > 0 {
		misses := make([]error, len(snap.Unmatched))
		for i, m := range snap.Unmatched {
			misses[i] = m
		}
		return &ExitError{Code: ExitUsage, Err: errors.Join(misses...)}
	}
	catalogTrips := sess.RoundTrips()
	pgVersion := sess.ServerMajor()
	if o.pgVersionSet {
		pgVersion = o.audit.PGVersion
	}
	findings := audit.Run(snap.Catalog, st.rules, audit.Options{PGVersion: pgVersion, Live: true})
	findings = audit.Suppress(findings, configDirectives(o.config), func(id string) bool { return ruleSelected(st.rules, id) })
	applySeverities(findings, st.severities)
	if o.Data {
		runDataChecks(ctx, sess, snap, findings, s)
	}
	if o.audit.Verbose {
		fmt.Fprintf(s.Err, "inspect: %s, PostgreSQL %d.%d: %d tables, %d indexes read in %d round trips\n",
			where(sess), sess.ServerMajor(), sess.ServerVersion%10000, snap.Tables, snap.Indexes, catalogTrips)
		if o.Data {
			fmt.Fprintf(s.Err, "inspect: data checks took %d more round trips\n", sess.RoundTrips()-catalogTrips)
		}
		fmt.Fprintf(s.Err, "inspect: catalog queries (one batch): %s\n", strings.Join(inspect.QueryNames(sess.ServerVersion), ", "))
	}
	doc := &report.Document{
		Tool:     report.ToolName,
		Version:  toolVersion(),
		Inputs:   []report.Input{{Path: where(sess), Layout: "live"}},
		Findings: findings,
		Summary: report.Summary{Live: true, Tables: snap.Tables, RoundTrips: sess.RoundTrips(),
			Elapsed: time.Since(start)},
		MinSeverity: st.minSeverity,
	}
	if err := newFilter.apply("inspect", st.rules, true, doc, s); err != nil {
		return err
	}
	findings = doc.Findings
	if err := writeReport(s.Out, doc, o.audit.Format, report.Options{Color: st.color, Verbose: o.audit.Verbose}); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if o.audit.FixSQL != "" {
		if err := writeFixSQL(o.audit.FixSQL, findings, nil, "", s); err != nil {
			return err
		}
	}
	if st.threshold.fails(findings) && !newFilter.accepted() {
		return exitWith(ExitFindings)
	}
	return nil
}

// where names the database without any secret: postgres://user@host:port/db.
func where(sess *inspect.Session) string {
	return fmt.Sprintf("postgres://%s@%s:%d/%s", sess.User, sess.Host, sess.Port, sess.Database)
}

// runDataChecks counts, for each finding about nullable key parts, the rows
// holding NULL there and the groups that already collide, and stores the
// counts on the finding (Data, and a note people can read).
func runDataChecks(ctx context.Context, sess *inspect.Session, snap *inspect.Snapshot, findings []audit.Finding, s *Streams) {
	indexes := indexesByObject(snap.Catalog)
	var checks []inspect.DataCheck
	var owners []int
	for i, f := range findings {
		target, ok := indexes[f.Object]
		if !ok || len(f.Columns) == 0 {
			continue
		}
		checks = append(checks, inspect.DataCheck{Table: target.table, Index: target.index, Parts: f.Columns})
		owners = append(owners, i)
	}
	var progress inspect.Progress
	if s.ErrTerminal {
		progress = func(done, total int, object string) {
			if object == "" {
				fmt.Fprintf(s.Err, "\r\033[Kdata checks: %d of %d queries done\n", done, total)
				return
			}
			fmt.Fprintf(s.Err, "\r\033[Kdata checks: %d of %d queries, %s", done, total, object)
		}
	}
	results := sess.CheckData(ctx, snap, checks, progress)
	for k, parts := range results {
		f := &findings[owners[k]]
		f.Data = dataCounts(parts)
		f.Notes = append(f.Notes, dataNotes(f.Data)...)
		audit.UseData(f)
	}
}

type indexTarget struct {
	table *catalog.Table
	index *catalog.Index
}

// indexesByObject maps "schema.table.index", the Object of a live finding,
// to the table and index.
func indexesByObject(cat *catalog.Catalog) map[string]indexTarget {
	out := map[string]indexTarget{}
	for _, t := range cat.Tables() {
		for _, ix := range t.Indexes {
			out[t.QualifiedName()+"."+ix.Name] = indexTarget{t, ix}
		}
	}
	return out
}

func dataCounts(parts []inspect.PartData) *audit.DataCounts {
	d := &audit.DataCounts{}
	for _, p := range parts {
		d.Parts = append(d.Parts, audit.PartCounts{
			Part:                   p.Part,
			NullRows:               p.NullRows.N,
			NullRowsSkipped:        p.NullRows.Skipped,
			CollidingGroups:        p.CollidingGroups.N,
			CollidingGroupsSkipped: p.CollidingGroups.Skipped,
			Rows:                   p.Rows.N,
			RowsSkipped:            p.Rows.Skipped,
		})
	}
	return d
}

// dataNotes says what the counts mean, one note per part.
func dataNotes(d *audit.DataCounts) []string {
	var notes []string
	for _, p := range d.Parts {
		var b strings.Builder
		fmt.Fprintf(&b, "data: %s: ", p.Part)
		switch {
		case p.NullRowsSkipped != "":
			fmt.Fprintf(&b, "NULL count skipped (%s)", p.NullRowsSkipped)
		case p.NullRows == 0 && p.RowsSkipped == "" && p.Rows == 0:
			b.WriteString("the index covers no row yet")
		case p.NullRows == 0 && p.RowsSkipped == "":
			fmt.Fprintf(&b, "no row of the %d the index covers holds NULL", p.Rows)
		case p.NullRows == 0:
			b.WriteString("no row holds NULL")
		default:
			fmt.Fprintf(&b, "%s NULL", countWords(p.NullRows, "row holds", "rows hold"))
		}
		switch {
		case p.CollidingGroupsSkipped != "":
			fmt.Fprintf(&b, "; collision count skipped (%s)", p.CollidingGroupsSkipped)
		case p.CollidingGroups > 0:
			fmt.Fprintf(&b, "; %s if NULLs were equal: the hole was used, and a NULLS NOT DISTINCT or split index fails to build until they are resolved",
				countWords(p.CollidingGroups, "group of rows already collides", "groups of rows already collide"))
		case p.NullRows > 0:
			b.WriteString("; no rows collide yet")
		}
		notes = append(notes, b.String())
	}
	return notes
}

func countWords(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
