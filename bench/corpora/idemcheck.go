package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// document is the part of idemcheck's JSON output (report/json.go) the
// table needs.
type document struct {
	Inputs []struct {
		Path       string   `json:"path"`
		Layout     string   `json:"layout"`
		Files      []string `json:"files"`
		Statements int      `json:"statements"`
	} `json:"inputs"`
	Findings []finding   `json:"findings"`
	Notes    []diagnosis `json:"notes"`
	Errors   []diagnosis `json:"errors"`
	Summary  struct {
		Files       int `json:"files"`
		Statements  int `json:"statements"`
		Tables      int `json:"tables"`
		InputErrors int `json:"input_errors"`
		Notes       int `json:"notes"`
	} `json:"summary"`
}

type finding struct {
	Rule     string    `json:"rule"`
	Severity string    `json:"severity"`
	Object   string    `json:"object"`
	Columns  []string  `json:"columns"`
	Message  string    `json:"message"`
	Position *position `json:"position"`
	// Proof is what --prove made of the finding's witness.
	Proof *proof `json:"proof"`
}

type proof struct {
	Verdict string `json:"verdict"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
}

type position struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

type diagnosis struct {
	Position *position `json:"position"`
	Message  string    `json:"message"`
}

// idemcheck is the command under measurement.
type idemcheck struct {
	bin     string
	hasVars bool // lint has --var (templated trees)
	// scratch is the server --prove runs the witnesses on; "" when the
	// command has no --prove (an older binary) or -prove=false.
	scratch string
}

// buildIdemcheck builds the command from the working tree, so the table
// measures the code as it is, unless a binary is given (to measure an
// older commit against today's judgments).
func buildIdemcheck(dir, given string) (*idemcheck, error) {
	if _, err := os.Stat("go.mod"); err != nil {
		return nil, errors.New("run from the repository root: go run ./bench/corpora")
	}
	bin := given
	if bin == "" {
		bin = filepath.Join(dir, "idemcheck")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go build: %v", err)
		}
	}
	help, err := exec.Command(bin, "lint", "--help").Output()
	if err != nil {
		return nil, fmt.Errorf("idemcheck lint --help: %v", err)
	}
	return &idemcheck{bin: bin, hasVars: bytes.Contains(help, []byte("--var"))}, nil
}

// proving makes lint and inspect run --prove on the scratch server dsn,
// when the command has it.
func (ic *idemcheck) proving(dsn string) error {
	help, err := exec.Command(ic.bin, "lint", "--help").Output()
	if err != nil {
		return fmt.Errorf("idemcheck lint --help: %v", err)
	}
	if bytes.Contains(help, []byte("--prove")) {
		ic.scratch = dsn
	}
	return nil
}

// proveArgs are the flags that run the witnesses.
func (ic *idemcheck) proveArgs() []string {
	if ic.scratch == "" {
		return nil
	}
	return []string{"--prove", "--scratch-dsn", ic.scratch}
}

// lint runs `idemcheck lint` on the setup file and the tree. Exit 1
// (findings) and 2 (input it could not read, reported in the document)
// both leave a document to read.
func (ic *idemcheck) lint(c *corpus) (*document, error) {
	args := append([]string{"lint", "--format", "json", "--fail-on", "none"}, ic.proveArgs()...)
	if c.Layout != "" {
		args = append(args, "--layout", c.Layout)
	}
	if ic.hasVars {
		for _, v := range c.Vars {
			args = append(args, "--var", v)
		}
	}
	if c.Setup != "" {
		args = append(args, c.Setup)
	}
	return ic.run(append(args, c.tree()))
}

// inspect runs `idemcheck inspect` on the database built from the corpus.
func (ic *idemcheck) inspect(dsn string) (*document, error) {
	return ic.run(append([]string{"inspect", "--dsn", dsn, "--format", "json", "--fail-on", "none"}, ic.proveArgs()...))
}

func (ic *idemcheck) run(args []string) (*document, error) {
	cmd := exec.Command(ic.bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() <= 2) {
		return nil, fmt.Errorf("idemcheck %s: %v\n%s", strings.Join(args, " "), err, firstLines(stderr.String(), 10))
	}
	var doc document
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		return nil, fmt.Errorf("idemcheck %s: reading its JSON: %v\n%s", strings.Join(args, " "), err, firstLines(stderr.String(), 10))
	}
	return &doc, nil
}

// files lists the files lint replayed, in its order.
func (d *document) files() []string {
	var out []string
	for _, in := range d.Inputs {
		out = append(out, in.Files...)
	}
	return out
}
