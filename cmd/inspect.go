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
	"github.com/idemcheck/idemcheck/config"
	"github.com/idemcheck/idemcheck/inspect"
	"github.com/idemcheck/idemcheck/pipeline"
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
	// LockTimeout is --lock-timeout, zero when not given (the session
	// then takes its default, never longer than half of --timeout).
	LockTimeout time.Duration
	Deadline    time.Duration
	Data        bool
	// AllowEmpty is --allow-empty: a database with no table in the
	// schemas inspected passes instead of exiting 2.
	AllowEmpty bool
	// pgVersionSet is true when --pg-version was given: it then overrides
	// the server's own version for fixes.
	pgVersionSet bool
	// config is the .idemcheck.yaml in force, nil when there is none; its
	// ignore entries name objects, which is how inspect findings are
	// suppressed.
	config *config.Config
	// newFlags are --baseline and --write-baseline.
	newFlags newFindingsFlags
	// prove is --prove and --scratch-dsn.
	prove proveFlags
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
and service files. With none of --dsn, DATABASE_URL, PGHOST, PGHOSTADDR,
PGPORT, PGDATABASE, PGUSER or PGSERVICE, inspect exits 2 rather than guess a
database; the report's first line names the one it read. A database with no
table in the schemas inspected exits 2 unless --allow-empty. With --data it also counts, for each finding, the rows that
hold NULL in the key and the groups of rows that already collide.`,
		Example: `  idemcheck inspect --dsn postgres://postgres@127.0.0.1:5432/payments
  DATABASE_URL=postgres://app@db.internal/payments idemcheck inspect --data --format json
  idemcheck inspect --schema public --table 'pay*' --fail-on error`,
		Args: noArgs("the database is named with --dsn, DATABASE_URL or the PG* variables"),
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := loadConfig(opts.audit.Config, s)
			if err != nil {
				return err
			}
			opts.audit.applyConfig(cfg, c.Flags().Changed)
			opts.config = cfg
			opts.pgVersionSet = c.Flags().Changed("pg-version") || (cfg != nil && cfg.Set["pg-version"])
			if !c.Flags().Changed("lock-timeout") {
				opts.LockTimeout = 0
			}
			return runInspect(c.Context(), opts, s)
		},
	}
	opts.audit.addTo(c)
	opts.newFlags.addTo(c, false)
	opts.prove.addTo(c)
	fl := c.Flags()
	fl.StringVar(&opts.DSN, "dsn", "", "connection string: postgres:// URL or key=value (default DATABASE_URL, then PG* variables)")
	fl.StringArrayVar(&opts.Schemas, "schema", nil, "audit only schemas matching this glob (repeatable)")
	fl.StringArrayVar(&opts.Tables, "table", nil, "audit only tables matching this glob, or schema.table glob (repeatable)")
	fl.DurationVar(&opts.Timeout, "timeout", inspect.DefaultTimeout, "statement timeout of every query, and the longest wait for any answer from the server, connecting included")
	fl.DurationVar(&opts.LockTimeout, "lock-timeout", inspect.DefaultLockTimeout, "how long a query waits for a table another session holds locked; shorter than --timeout")
	defaultIs(c, "lock-timeout", fmt.Sprintf("%s, or half of --timeout when that is shorter", inspect.DefaultLockTimeout))
	defaultIs(c, "pg-version", "the server's own version")
	fl.DurationVar(&opts.Deadline, "deadline", 0, "bound on the whole run, connecting, the catalog and every count included (default: none)")
	fl.BoolVar(&opts.Data, "data", false, "also count NULL keys and colliding rows (reads table data)")
	fl.BoolVar(&opts.AllowEmpty, "allow-empty", false, "pass on a database with no table in the schemas inspected (without it, exit 2)")
	return c
}

// inspectSettings are the flags checked and turned into typed values.
type inspectSettings struct {
	auditSettings
	filter inspect.Filter
}

func (o *inspectOptions) settings(s *Streams) (inspectSettings, error) {
	var st inspectSettings
	var err error
	st.auditSettings, err = o.audit.settings(s, o.pgVersionSet, func() error {
		if o.audit.FixSQL != "" {
			if info, err := os.Stat(o.audit.FixSQL); err == nil && info.IsDir() {
				return usageError("--fix-sql %s: inspect writes one file of fixes; a migration directory is for lint", o.audit.FixSQL)
			}
		}
		if o.Timeout <= 0 {
			return usageError("--timeout must be positive, got %s", o.Timeout)
		}
		if o.LockTimeout < 0 || o.LockTimeout > 0 && o.LockTimeout >= o.Timeout {
			return usageError("--lock-timeout %s must be positive and shorter than --timeout %s, so that a wait for a lock is reported as one", o.LockTimeout, o.Timeout)
		}
		if o.Deadline < 0 {
			return usageError("--deadline must be positive, got %s", o.Deadline)
		}
		return nil
	})
	if err != nil {
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
	// Before anything is prepared (a baseline read, a scratch cluster for
	// --prove): with no database named there is nothing to run on.
	if err := inspect.Given(o.DSN, s.Getenv); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	newFilter, err := o.newFlags.prepare(ctx)
	if err != nil {
		return err
	}
	target, targetFrom := 0, "the live server"
	if o.pgVersionSet {
		target, targetFrom = o.audit.PGVersion, "--pg-version"
	}
	pr, err := o.prove.prepare(s, target, targetFrom)
	if err != nil {
		return err
	}
	sess, err := inspect.Open(ctx, inspect.Config{DSN: o.DSN, Getenv: s.Getenv, Timeout: o.Timeout,
		LockTimeout: o.LockTimeout, Deadline: o.Deadline, Start: start})
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	defer sess.Close(context.Background())
	if err := pr.refuseInspected(sess.Host, sess.Port, sess.Database); err != nil {
		return err
	}
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
	if pr != nil {
		pr.target, pr.cfg.Major = pgVersion, pgVersion
	}
	var diags []report.Diagnostic
	if snap.Tables == 0 && !o.AllowEmpty {
		diags = append(diags, report.Diagnostic{Level: report.LevelError, Message: emptyDatabase(sess, st.filter)})
	}
	res, err := pipeline.Run(pipeline.Input{
		Catalog:     snap.Catalog,
		Directives:  configDirectives(o.config),
		Diagnostics: diags,
		Inputs:      []report.Input{{Path: where(sess), Layout: "live"}},
		Summary:     report.Summary{Live: true, Tables: snap.Tables, RoundTrips: catalogTrips},
	}, pipeline.Options{
		Rules:       st.Rules,
		Audit:       audit.Options{PGVersion: pgVersion, Live: true},
		Severities:  st.Severities,
		MinSeverity: st.MinSeverity,
		Enrich: func(findings []audit.Finding, summary *report.Summary) []report.Diagnostic {
			if !o.Data {
				return nil
			}
			diags := runDataChecks(ctx, sess, snap, findings, s)
			summary.RoundTrips = sess.RoundTrips()
			return diags
		},
		Prove:   pr.hook(ctx),
		New:     newFilter.options("inspect"),
		Version: toolVersion(),
		Start:   start,
	})
	if err != nil {
		return usageError("%v", err)
	}
	res.Doc.Database = &report.Database{Host: sess.Host, Port: sess.Port, Database: sess.Database, User: sess.User,
		Version: fmt.Sprintf("%d.%d", sess.ServerMajor(), sess.ServerVersion%10000)}
	if o.audit.Verbose {
		fmt.Fprintf(s.Err, "inspect: %s, PostgreSQL %d.%d: %d tables, %d indexes read in %d round trips\n",
			where(sess), sess.ServerMajor(), sess.ServerVersion%10000, snap.Tables, snap.Indexes, catalogTrips)
		if o.Data {
			fmt.Fprintf(s.Err, "inspect: data checks took %d more round trips\n", sess.RoundTrips()-catalogTrips)
		}
		fmt.Fprintf(s.Err, "inspect: catalog queries (one batch): %s\n", strings.Join(inspect.QueryNames(sess.ServerVersion), ", "))
	}
	newFilter.reportWritten(res, s)
	if err := writeReport(s.Out, res, o.audit.Format, report.Options{Color: st.Color, Verbose: o.audit.Verbose, Width: s.textWidth()}); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if o.audit.FixSQL != "" {
		if err := writeFixSQL(o.audit.FixSQL, res.Findings(), nil, "", s); err != nil {
			return err
		}
	}
	// The data checks stopped (a lost connection, the deadline), or --prove
	// could not start its scratch server: the report has what was found,
	// and the run could not finish.
	if res.InputErrors() {
		return exitWith(ExitUsage)
	}
	if res.Fails(st.FailOn) {
		return exitWith(ExitFindings)
	}
	return nil
}

// where names the database without any secret: postgres://user@host:port/db.
func where(sess *inspect.Session) string {
	return fmt.Sprintf("postgres://%s@%s:%d/%s", sess.User, sess.Host, sess.Port, sess.Database)
}

// emptyDatabase is the input error of a database with no table to audit:
// most often not the database the user meant (libpq's default, a fresh
// one, another schema), and never a pass.
func emptyDatabase(sess *inspect.Session, f inspect.Filter) string {
	in := "in any schema but the system ones"
	if len(f.Schemas) > 0 {
		in = "in the schemas matching " + strings.Join(f.Schemas, ", ")
	}
	return fmt.Sprintf("database %s on %s:%d has no table %s, so there is nothing to audit: "+
		"check --dsn, DATABASE_URL or the PG* variables name the database you meant, or give --allow-empty to accept an empty one",
		sess.Database, sess.Host, sess.Port, in)
}

// runDataChecks counts, for each finding about nullable key parts, the rows
// holding NULL there and the groups that already collide, and puts the
// counts on the finding (audit.AddData: Data, notes, and what they change).
// On a terminal, stderr shows the progress. A failure that stopped the
// counts is returned as an error for the report; each table another
// session held locked, as a note.
func runDataChecks(ctx context.Context, sess *inspect.Session, snap *inspect.Snapshot, findings []audit.Finding, s *Streams) []report.Diagnostic {
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
	counts, locked, err := sess.CountFindings(ctx, snap, findings, progress)
	for i, d := range counts {
		if d != nil {
			audit.AddData(&findings[i], d)
		}
	}
	var diags []report.Diagnostic
	for _, why := range locked {
		diags = append(diags, report.Diagnostic{Level: report.LevelNote, Message: "data checks: " + why})
	}
	if err != nil {
		d := report.Diagnostic{Level: report.LevelError, Message: "data checks stopped: " + err.Error()}
		var se *inspect.SessionError
		if errors.As(err, &se) {
			d.SQLState = se.SQLState
		}
		diags = append(diags, d)
	}
	return diags
}
