package cmd

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/idemcheck/idemcheck/inspect"
	"github.com/idemcheck/idemcheck/internal/claimaudit"
	"github.com/idemcheck/idemcheck/internal/pgsecret"
	"github.com/idemcheck/idemcheck/racetest/sqlrace"
	"github.com/spf13/cobra"
)

func init() { raceSubcommands = append(raceSubcommands, newRaceSQLCmd) }

type raceSQLOptions struct {
	out         raceOutput
	dsn         string
	file        string
	n           int
	rounds      int
	commit      bool
	isolation   string
	timeout     time.Duration
	lockTimeout time.Duration
	deadline    time.Duration
	window      time.Duration
	force       bool
}

func newRaceSQLCmd(s *Streams) *cobra.Command {
	o := &raceSQLOptions{}
	c := &cobra.Command{
		Use:   "sql [flags] STATEMENT",
		Short: "Race N copies of a claim statement inside PostgreSQL, rolled back",
		Long: `sql runs the claim statement on N connections at the same moment, each in
its own transaction, for --rounds rounds. {{key}}, {{round}} and {{uuid}}
become bind parameters with fresh values each round, shared by the round's N
statements; they are never spliced into the SQL text.

The workers wait behind an advisory lock the probe holds and are released
together once all N wait (the start spread is measured on the server's
clock). A returned row is a win; no row, a unique violation (23505) or a lock
timeout behind another claim that has not committed (55P03, --lock-timeout)
is a refusal; a serialization failure (40001) is counted on its own; any
other error is reported with the server's message.

Every transaction rolls back: nothing is written unless --commit (then a
COMMIT that fails, as a deferred unique constraint or SERIALIZABLE makes it
fail, or that PostgreSQL answers with ROLLBACK, is a refusal). Under
--isolation repeatable-read and serializable PostgreSQL decides between
concurrent claims at COMMIT, which a rollback never reaches: they need
--commit. When a
round has more than one win, the rows the winners wrote are read back and
the table's unique indexes (read as inspect reads them) name the one that
should have refused.

Connection settings as for inspect: --dsn, else DATABASE_URL, else the PG*
variables.`,
		Example: `  idemcheck race sql --dsn $DATABASE_URL \
    'INSERT INTO payments (idempotency_key, amount) VALUES ({{key}}, 100) ON CONFLICT DO NOTHING RETURNING id'
  idemcheck race sql -n 8 --file claim.sql`,
		Args: atMostOneArg("the claim statement (or --file)"),
		RunE: func(c *cobra.Command, args []string) error {
			return runRaceSQL(c.Context(), s, o, args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.dsn, "dsn", "", "PostgreSQL connection (URL or key=value; default DATABASE_URL, then PG* variables)")
	f.StringVar(&o.file, "file", "", "read the statement from a file ('-' for stdin)")
	f.IntVarP(&o.n, "requests", "n", 2, "statements per round, each on its own connection")
	f.IntVar(&o.rounds, "rounds", 30, "rounds, each with a fresh key")
	f.BoolVar(&o.commit, "commit", false, "commit the winners' rows instead of rolling back; a claim whose COMMIT fails (40001 included) is a refusal")
	f.StringVar(&o.isolation, "isolation", "read-committed", "the workers' isolation level: read-committed, repeatable-read or serializable (the last two decide at COMMIT, so they need --commit)")
	f.DurationVar(&o.timeout, "timeout", sqlrace.DefaultTimeout, "bound on each round: reaching the barrier and the claim")
	f.DurationVar(&o.lockTimeout, "lock-timeout", sqlrace.DefaultLockTimeout, "SET LOCAL lock_timeout for the claim")
	f.DurationVar(&o.deadline, "deadline", 5*time.Minute, "deadline for the whole run")
	f.DurationVar(&o.window, "window", 0, "race window: a round whose start spread exceeds it is inconclusive")
	f.BoolVar(&o.force, "force", false, "allow -n above 256 or --rounds above 10000")
	o.out.bind(c)
	o.out.bindQuiet(c)
	completeWords(c, "isolation", []string{"read-committed", "repeatable-read", "serializable"})
	return c
}

func runRaceSQL(ctx context.Context, s *Streams, o *raceSQLOptions, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	if err := o.out.validate(s); err != nil {
		return err
	}
	stmt, err := o.statement(s, args)
	if err != nil {
		return err
	}
	p := sqlrace.Probe{
		DSN: o.dsn, Statement: stmt, N: o.n, Rounds: o.rounds, Commit: o.commit, Isolation: o.isolation,
		Timeout: o.timeout, LockTimeout: o.lockTimeout, Deadline: o.deadline, Window: o.window, Force: o.force,
	}
	p.Defaults()
	parsed, err := p.Validate()
	if err != nil {
		return usageError("race sql: %v", err)
	}
	// inspect resolves the connection settings and words a failure without
	// the password; its session then reads the unique indexes for the
	// diagnosis.
	// It holds no transaction between reads, and is the one session race
	// sql holds besides the probe's.
	sess, err := inspect.Open(ctx, inspect.Config{DSN: o.dsn, Getenv: s.Getenv, Timeout: o.timeout, Deadline: o.deadline, Start: start})
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	defer sess.Close(context.Background())
	p.UniqueKeys = claimaudit.UniqueKeys(sess.ReadCatalog, parsed.Text)
	p.CallerSessions = 1
	if p.DSN == "" {
		p.DSN = raceGetenv(s, "DATABASE_URL")
	}
	p.Scrub = pgsecret.New(p.DSN, raceGetenv(s, "PGPASSWORD"))
	rep := newRaceReport(s, o.out)
	defer rep.stop()
	p.Progress = rep
	res, err := sqlrace.Run(ctx, p)
	if err != nil {
		return usageError("race sql: %v", err)
	}
	return rep.write(res)
}

// statement is the claim from the argument or --file, exactly one of them.
func (o *raceSQLOptions) statement(s *Streams, args []string) (string, error) {
	switch {
	case o.file != "" && len(args) > 0:
		return "", usageError("give the statement as an argument or with --file, not both")
	case len(args) == 1:
		return args[0], nil
	case o.file == "":
		return "", usageError("race sql needs a statement: an argument or --file")
	}
	var b []byte
	var err error
	if o.file == "-" {
		b, err = io.ReadAll(s.In)
	} else {
		b, err = os.ReadFile(o.file)
	}
	if err != nil {
		return "", usageError("--file %s: %v", o.file, unwrapPathError(err))
	}
	return string(b), nil
}

func unwrapPathError(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
