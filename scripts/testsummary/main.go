// Command testsummary reads `go test -json` on stdin and prints what go
// test prints without -json (each package's result line, and the whole
// output of every test that failed), then a summary of the tests that
// skipped and why: a skip is invisible in go test's own output unless -v,
// and a skipped test tested nothing. It exits 1 when a test or build
// failed. scripts/test.sh runs it behind the README's test command.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
}

type skip struct {
	pkg, test, why string
}

func main() {
	failed, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// summarize copies go test's own output from the events in r to w, then
// the skip summary; it reports whether anything failed.
func summarize(r io.Reader, w io.Writer) (bool, error) {
	out := bufio.NewWriter(w)
	defer out.Flush()
	// A test's output is held until it ends: printed if it failed, read
	// for the reason if it skipped.
	held := map[[2]string][]string{}
	var skips []skip
	failed := false
	passed, total := 0, 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// Not an event (go vet's or the linker's own lines): as is.
			fmt.Fprintf(out, "%s\n", line)
			continue
		}
		key := [2]string{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(out, e.Output)
		case "build-fail":
			failed = true
		case "output":
			if e.Test == "" {
				fmt.Fprint(out, e.Output)
			} else {
				held[key] = append(held[key], e.Output)
			}
		case "fail":
			if e.Test == "" {
				failed = true
				continue
			}
			total++
			failed = true
			for _, o := range held[key] {
				// go test without -v prints no === RUN, PAUSE, CONT or NAME.
				if !strings.HasPrefix(o, "=== ") {
					fmt.Fprint(out, o)
				}
			}
			delete(held, key)
		case "skip":
			if e.Test != "" {
				total++
				skips = append(skips, skip{e.Package, e.Test, reason(held[key])})
			}
			delete(held, key)
		case "pass":
			if e.Test != "" {
				total++
				passed++
			}
			delete(held, key)
		}
		out.Flush()
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	fmt.Fprintf(out, "\n%d tests: %d passed, %d skipped, %d failed\n", total, passed, len(skips), total-passed-len(skips))
	if len(skips) == 0 {
		return failed, nil
	}
	sort.Slice(skips, func(i, j int) bool {
		if skips[i].pkg != skips[j].pkg {
			return skips[i].pkg < skips[j].pkg
		}
		return skips[i].test < skips[j].test
	})
	fmt.Fprintf(out, "skipped (these tested nothing on this machine):\n")
	for _, s := range skips {
		fmt.Fprintf(out, "  %s %s: %s\n", s.pkg, s.test, s.why)
	}
	return failed, nil
}

// reason is what a skipped test logged before its --- SKIP line: the
// message of t.Skip, without the file:line prefix.
func reason(lines []string) string {
	var msg []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		if i := strings.Index(t, ".go:"); i > 0 && !strings.Contains(t[:i], " ") {
			if j := strings.Index(t[i:], ": "); j > 0 {
				t = t[i+j+2:]
			}
		}
		msg = append(msg, t)
	}
	if len(msg) == 0 {
		return "(no reason given)"
	}
	return strings.Join(msg, " ")
}
