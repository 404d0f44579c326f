package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/parse"
)

// Wall time on a shared machine moves with the load; the count of
// instructions a process executes does not. -instructions runs lint and the
// parse baseline once more each under valgrind's callgrind, which counts
// them (Ir), and reports the ratio beside the timed one.
//
// The baseline's count is that of a process that reads, splits and parses
// every statement less that of one that only reads and splits, so that, as
// for the timed baseline, only the parser is counted; Go's start-up, the
// reading and the splitting fall out. Lint is counted whole, as it is
// timed: the process a user runs.

// instructionCounts are callgrind's totals for one corpus.
type instructionCounts struct {
	lint, parseAndSplit, split int64
}

func (c *instructionCounts) parse() int64 { return c.parseAndSplit - c.split }

// baselineMode is the hidden -baseline-once flag: the process callgrind
// counts for the baseline.
const (
	modeParse = "parse"
	modeSplit = "split"
)

// runBaselineOnce reads and splits every file of path and, in modeParse,
// parses every statement once, as parseBaseline does.
func runBaselineOnce(path, mode string, out io.Writer) error {
	if mode != modeParse && mode != modeSplit {
		return fmt.Errorf("-baseline-mode must be %s or %s", modeParse, modeSplit)
	}
	stmts := readStatements([]string{path})
	if mode == modeParse {
		for _, st := range stmts {
			parse.Parse(st)
		}
	}
	_, err := fmt.Fprintf(out, "%s: %d statements (%s)\n", path, len(stmts), mode)
	return err
}

// measureInstructions counts lint and the baseline on c under callgrind.
func measureInstructions(c *corpus, bin string, log io.Writer) (*instructionCounts, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "corpus %s: instructions under callgrind (lint, then the baseline twice)\n", c.Name)
	var n instructionCounts
	if n.lint, err = callgrind(bin, "lint", "--format", "json", c.Path); err != nil {
		return nil, fmt.Errorf("corpus %s: lint: %v", c.Name, err)
	}
	if n.parseAndSplit, err = callgrind(self, "-baseline-once", c.Path, "-baseline-mode", modeParse); err != nil {
		return nil, fmt.Errorf("corpus %s: baseline: %v", c.Name, err)
	}
	if n.split, err = callgrind(self, "-baseline-once", c.Path, "-baseline-mode", modeSplit); err != nil {
		return nil, fmt.Errorf("corpus %s: baseline: %v", c.Name, err)
	}
	if n.parse() <= 0 {
		return nil, fmt.Errorf("corpus %s: the baseline's parse counted %d instructions", c.Name, n.parse())
	}
	return &n, nil
}

var collected = regexp.MustCompile(`(?m)^==\d+== Collected : (\d+)$`)

// callgrind runs a command under callgrind and returns the instructions it
// executed. Go's asynchronous preemption signals trip callgrind's signal
// bookkeeping, so they are turned off (the goroutines still yield at
// function calls). Exit status 1 (findings) is expected.
func callgrind(name string, args ...string) (int64, error) {
	dir, err := os.MkdirTemp("", "idemcheck-callgrind")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	vargs := append([]string{"--tool=callgrind", "--callgrind-out-file=" + filepath.Join(dir, "out"), name}, args...)
	cmd := exec.Command("valgrind", vargs...)
	cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return 0, fmt.Errorf("valgrind %s: %v\n%s", strings.Join(args, " "), err, firstLines(stderr.String(), 10))
	}
	m := collected.FindStringSubmatch(stderr.String())
	if m == nil {
		return 0, fmt.Errorf("valgrind %s: no instruction count in its output\n%s", strings.Join(args, " "), firstLines(stderr.String(), 10))
	}
	return strconv.ParseInt(m[1], 10, 64)
}
