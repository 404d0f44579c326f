// Package cmd holds idemcheck's cobra commands. A command parses its flags
// into an options struct and calls one function that does the work and
// returns an error; exit statuses are chosen in one place (Execute) from the
// typed errors those functions return. Commands write only to the streams
// they are given, so tests can capture output and choose whether it is a
// terminal.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
)

// Exit statuses shared by every command (docs/cli.md).
const (
	ExitOK           = 0 // nothing at or above --fail-on; the gate held
	ExitFindings     = 1 // findings at or above --fail-on; the gate is broken
	ExitUsage        = 2 // could not run: usage, unreadable input, parse errors, no connection
	ExitInconclusive = 3 // race: errors or spreads too wide to judge
)

// ExitError carries the exit status a command wants. A nil Err means the
// command has already said everything it had to say.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// exitWith returns an error that makes Execute exit with code without
// printing anything more.
func exitWith(code int) error { return &ExitError{Code: code} }

// usageError wraps err so that Execute prints it and exits 2.
func usageError(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Streams are the writers and reader a command uses, and whether stdout is
// a terminal (which decides colour and progress lines).
type Streams struct {
	In          io.Reader
	Out         io.Writer
	Err         io.Writer
	OutTerminal bool
	ErrTerminal bool
	// Getenv reads the environment; tests replace it.
	Getenv func(string) string
}

// SystemStreams are the process's own stdin, stdout and stderr.
func SystemStreams() *Streams {
	return &Streams{
		In:          os.Stdin,
		Out:         os.Stdout,
		Err:         os.Stderr,
		OutTerminal: isatty.IsTerminal(os.Stdout.Fd()) || isatty.IsCygwinTerminal(os.Stdout.Fd()),
		ErrTerminal: isatty.IsTerminal(os.Stderr.Fd()) || isatty.IsCygwinTerminal(os.Stderr.Fd()),
		Getenv:      os.Getenv,
	}
}

// subcommands are added to the root by each command file's init, so that a
// new command is one new file.
var subcommands []func(*Streams) *cobra.Command

func register(f func(*Streams) *cobra.Command) { subcommands = append(subcommands, f) }

// NewRoot builds the idemcheck command tree writing to s.
func NewRoot(s *Streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "idemcheck",
		Short: "Audit idempotency constraints: find holes in unique indexes and race the gate",
		Long: `idemcheck finds unique indexes that do not stop duplicates (a nullable key part
lets every row with a NULL through), in migration trees (lint) and live
PostgreSQL databases (inspect), and fires identical requests at a running
system to prove whether exactly one of them performs the effect (race).`,
		Example: `  idemcheck lint testdata/examples/payments
  idemcheck inspect --dsn postgres://postgres@127.0.0.1:5432/payments
  idemcheck race demo
  idemcheck rules nullable-key`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       toolVersion(),
	}
	asGroup(root)
	// --version prints what the version command prints. It is declared
	// here, not by cobra, so that it has no -v: every command's -v is
	// --verbose.
	root.Flags().Bool("version", false, "print the version, commit and parser versions, as the version command does")
	var v strings.Builder
	_ = writeVersion(&v, readVersionInfo())
	root.SetVersionTemplate(strings.ReplaceAll(v.String(), "{{", "{{`{{`}}"))
	root.SetFlagErrorFunc(flagError)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	for _, f := range subcommands {
		root.AddCommand(f(s))
	}
	return root
}

// Execute runs idemcheck with the process arguments and returns the exit
// status.
func Execute() int {
	return Run(SystemStreams(), os.Args[1:])
}

// Run runs idemcheck with args on s and returns the exit status. It is the
// one place where errors become exit statuses.
func Run(s *Streams, args []string) int {
	root := NewRoot(s)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(s.Err, "idemcheck: %v\n", ee.Err)
		}
		return ee.Code
	}
	// Anything else comes from cobra itself: an unknown flag or command.
	fmt.Fprintf(s.Err, "idemcheck: %v\n", err)
	return ExitUsage
}
