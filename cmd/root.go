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
	"golang.org/x/term"

	"github.com/idemcheck/idemcheck/report"
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
	// Width is the terminal's width in columns when stdout is a terminal
	// whose size can be read, else 0: text reports then wrap at
	// report.DefaultWidth, so that a log reads the same on every machine.
	Width int
	// ErrWidth is the width in columns of stderr when it is a terminal
	// whose size can be read, else 0: race's progress line is kept to it
	// (80 columns when it is 0).
	ErrWidth int
	// Getenv reads the environment; tests replace it.
	Getenv func(string) string
}

// textWidth is where text reports wrap: the terminal's width when stdout
// is a terminal, else 0 (report.DefaultWidth), whatever Width says.
func (s *Streams) textWidth() int {
	if !s.OutTerminal {
		return 0
	}
	return s.Width
}

// SystemStreams are the process's own stdin, stdout and stderr.
func SystemStreams() *Streams {
	s := &Streams{
		In:          os.Stdin,
		Out:         os.Stdout,
		Err:         os.Stderr,
		OutTerminal: isatty.IsTerminal(os.Stdout.Fd()) || isatty.IsCygwinTerminal(os.Stdout.Fd()),
		ErrTerminal: isatty.IsTerminal(os.Stderr.Fd()) || isatty.IsCygwinTerminal(os.Stderr.Fd()),
		Getenv:      os.Getenv,
	}
	if s.OutTerminal {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
			s.Width = w
		}
	}
	if s.ErrTerminal {
		if w, _, err := term.GetSize(int(os.Stderr.Fd())); err == nil && w > 0 {
			s.ErrWidth = w
		}
	}
	return s
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
	root.SetHelpCommand(newHelpCmd())
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	for _, f := range subcommands {
		root.AddCommand(f(s))
	}
	adoptCompletionCmd(root)
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
	out := &countingWriter{w: s.Out}
	counted := *s
	counted.Out = out
	root := NewRoot(&counted)
	root.SetArgs(args)
	c, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	code, msg := ExitUsage, err
	var ee *ExitError
	if errors.As(err, &ee) {
		code, msg = ee.Code, ee.Err
	}
	// Anything that is not an ExitError comes from cobra itself.
	if msg != nil {
		fmt.Fprintf(s.Err, "idemcheck: %v\n", msg)
	}
	if code == ExitUsage && out.n == 0 && msg != nil {
		writeErrorReport(s.Out, c, msg)
	}
	return code
}

// writeErrorReport writes, for a report command (lint, inspect) whose
// --format is for machines, a report that holds the error that stopped the
// run before any report was written: a JSON document with the error and
// its format_version, a SARIF log whose invocation failed, GitLab's empty
// list. A CI step that uploads the file then uploads a valid one, and the
// exit status (2) still fails the job. Text and GitHub annotations get
// nothing: the message on stderr is their report.
func writeErrorReport(w io.Writer, c *cobra.Command, err error) {
	if c == nil || c.Annotations[reportAnnotation] == "" {
		return
	}
	f := c.Flags().Lookup("format")
	if f == nil {
		return
	}
	switch format := f.Value.String(); format {
	case "json", "sarif", "gitlab":
		doc := &report.Document{Tool: report.ToolName, Version: toolVersion(),
			Diagnostics: []report.Diagnostic{{Level: report.LevelError, Message: err.Error()}}}
		opts := report.Options{}
		opts.Paths.Root, opts.Paths.Prefix = repoRoot()
		_ = report.Write(w, doc, format, opts)
	}
}

// reportAnnotation marks the commands that write reports (lint, inspect).
const reportAnnotation = "idemcheck/report"

// countingWriter counts what a command wrote to stdout, so that Run knows
// whether a report was written before an error.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
