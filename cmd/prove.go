package cmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/idemcheck/idemcheck/audit"
	"github.com/idemcheck/idemcheck/prove"
	"github.com/idemcheck/idemcheck/report"
)

// scratchDSNVariable names the environment variable --scratch-dsn
// defaults to.
const scratchDSNVariable = "IDEMCHECK_SCRATCH_DSN"

// debianServerRoot is where the throwaway cluster's programs are looked
// for after PATH and pg_config; a test points it elsewhere.
var debianServerRoot = prove.DefaultDebianRoot

// proveFlags are --prove and --scratch-dsn, which lint and inspect share.
type proveFlags struct {
	On  bool
	DSN string
}

func (p *proveFlags) addTo(c *cobra.Command) {
	fl := c.Flags()
	fl.BoolVar(&p.On, "prove", false, "run each hole's witness on a scratch PostgreSQL, and the first fix on a second copy")
	fl.StringVar(&p.DSN, "scratch-dsn", "", "server for --prove where the role may create and drop a database (default "+
		scratchDSNVariable+", else a throwaway cluster from initdb)")
}

// prover is --prove for one run, checked.
type prover struct {
	cfg        prove.Config
	target     int
	targetFrom string
}

// prepare checks --prove before anything is read: without a scratch DSN
// and without initdb, or as root with no user to run initdb as, the run
// stops with exit status 2. It returns nil without --prove.
func (p *proveFlags) prepare(s *Streams, target int, targetFrom string) (*prover, error) {
	if !p.On {
		if p.DSN != "" {
			return nil, usageError("--scratch-dsn is the server --prove runs on: give --prove too")
		}
		return nil, nil
	}
	dsn := p.DSN
	if dsn == "" {
		dsn = s.Getenv(scratchDSNVariable)
	}
	cfg := prove.Config{DSN: dsn, Getenv: s.Getenv, DebianRoot: debianServerRoot, Major: target}
	if err := prove.Available(cfg); err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return &prover{cfg: cfg, target: target, targetFrom: targetFrom}, nil
}

// refuseInspected stops inspect --prove when the scratch DSN is the
// database being inspected: the witnesses never run there.
func (pr *prover) refuseInspected(host string, port uint16, database string) error {
	if pr == nil || pr.cfg.DSN == "" {
		return nil
	}
	same, err := prove.SameDatabase(pr.cfg.DSN, host, port, database)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if same {
		return usageError("--scratch-dsn names the database being inspected (%s:%d/%s): --prove never runs anything there; "+
			"give a server or database of its own", host, port, database)
	}
	return nil
}

// hook is the pipeline's Prove step: it starts the scratch server only
// when some finding has a witness, runs them all, and stops it.
func (pr *prover) hook(ctx context.Context) func([]audit.Finding) (*report.Proving, error) {
	if pr == nil {
		return nil
	}
	return func(findings []audit.Finding) (_ *report.Proving, err error) {
		out := &report.Proving{Target: pr.target, TargetFrom: pr.targetFrom, Scope: prove.Scope}
		some := false
		for _, f := range findings {
			some = some || (f.Witness != nil && f.Suppressed == nil)
		}
		if !some {
			return out, nil
		}
		// An interrupt stops the witnesses, not the clean-up: a throwaway
		// cluster must not outlive the run.
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		srv, err := prove.Open(ctx, pr.cfg)
		if err != nil {
			return out, err
		}
		defer func() {
			if cerr := srv.Close(context.Background()); cerr != nil && err == nil {
				err = fmt.Errorf("--prove: %v", cerr)
			}
		}()
		out.Server, out.Version, out.Started = srv.Where, srv.Version, srv.Started
		out.Elapsed = srv.Prove(ctx, findings)
		if ctx.Err() != nil {
			return out, fmt.Errorf("--prove: interrupted; the findings it had not proven say so")
		}
		return out, nil
	}
}
