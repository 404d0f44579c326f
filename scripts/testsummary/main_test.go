package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The summary of a real go test -json run of a small module with a test
// that passes, one that skips and one that fails: go test's own lines are
// kept, the failure is shown whole, and the skip is listed with its reason.
func TestSummaryOfARealRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/sample\n\ngo 1.22\n",
		"a/a_test.go": `package a

import "testing"

func TestPass(t *testing.T) {}

func TestSkip(t *testing.T) { t.Skip("no Redis at 127.0.0.1:6379") }

func TestFail(t *testing.T) { t.Error("the count was 2, want 1") }
`,
		"b/b.go": "package b\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	raw, _ := cmd.Output() // exits 1: a test fails
	var out bytes.Buffer
	failed, err := summarize(bytes.NewReader(raw), &out)
	if err != nil {
		t.Fatal(err)
	}
	if !failed {
		t.Error("a failed test: summarize reports no failure")
	}
	got := out.String()
	for _, want := range []string{
		"--- FAIL: TestFail",
		"the count was 2, want 1",
		"FAIL\texample.com/sample/a",
		"?   \texample.com/sample/b\t[no test files]",
		"3 tests: 1 passed, 1 skipped, 1 failed",
		"  example.com/sample/a TestSkip: no Redis at 127.0.0.1:6379\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "=== RUN") || strings.Contains(got, "TestPass") {
		t.Errorf("summary shows passing tests' lines, which go test without -v does not:\n%s", got)
	}
}
