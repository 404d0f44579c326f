// Package golden compares test output with files kept in testdata, the
// golden files, and rewrites them when a test binary runs with -update:
//
//	go test ./report -update
//
// Every golden test of the module uses it, so the flag, the messages and
// the way a file is rewritten are the same everywhere. Review the diff of a
// rewritten golden file before committing it.
//
// Only tests import this package: importing it defines the -update flag.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the tests produce")

// Update reports whether the test binary runs with -update, for a test
// whose golden text is part of a larger file (a generated section of the
// README) and rewrites it itself.
func Update() bool { return *update }

// T is the part of *testing.T that Check uses.
type T interface {
	Helper()
	Name() string
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Check compares got with the file at path. With -update it writes got to
// path instead (creating its directory) and passes.
func Check(t T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("%v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("%v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s writes it)", err, Rerun(t))
		return
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output; if the change is intended, rewrite it with %s and review the diff\n%s",
			path, Rerun(t), Diff(string(want), string(got)))
	}
}

// Rerun is the command that rewrites the golden files of t's test.
func Rerun(t T) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return "go test -run '^" + name + "$' -update"
}

// Diff shows the lines from the first to the last that differ between want
// (the golden file, "-") and got (the output, "+").
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	start := 0
	for start < len(w) && start < len(g) && w[start] == g[start] {
		start++
	}
	ew, eg := len(w), len(g)
	for ew > start && eg > start && w[ew-1] == g[eg-1] {
		ew, eg = ew-1, eg-1
	}
	var b strings.Builder
	for _, l := range w[start:ew] {
		b.WriteString("- " + l + "\n")
	}
	for _, l := range g[start:eg] {
		b.WriteString("+ " + l + "\n")
	}
	return b.String()
}
