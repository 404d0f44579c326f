package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a T that keeps what Check reports instead of failing.
type recorder struct {
	errors []string
	fatal  bool
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestSomething/case" }
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
}

func withUpdate(t *testing.T, on bool) {
	old := *update
	*update = on
	t.Cleanup(func() { *update = old })
}

func TestCheck(t *testing.T) {
	withUpdate(t, false)
	path := filepath.Join(t.TempDir(), "out.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	var r recorder
	Check(&r, path, []byte("one\ntwo\nthree\n"))
	if len(r.errors) != 0 {
		t.Errorf("equal output failed: %q", r.errors)
	}

	r = recorder{}
	Check(&r, path, []byte("one\n2\nthree\n"))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], path+" differs from the output") ||
		!strings.Contains(r.errors[0], "- two\n+ 2\n") || strings.Contains(r.errors[0], "three") ||
		!strings.Contains(r.errors[0], "go test -run '^TestSomething$' -update") {
		t.Errorf("different output: errors %q, want one showing the changed line and the rerun command", r.errors)
	}

	r = recorder{}
	Check(&r, filepath.Join(t.TempDir(), "missing.golden"), []byte("x"))
	if !r.fatal || !strings.Contains(r.errors[0], "-update") {
		t.Errorf("missing golden file: errors %q, want a fatal one naming -update", r.errors)
	}
}

func TestCheckUpdateRewrites(t *testing.T) {
	withUpdate(t, true)
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	var r recorder
	Check(&r, path, []byte("new\n"))
	if len(r.errors) != 0 {
		t.Fatalf("update failed: %q", r.errors)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "new\n" {
		t.Fatalf("after -update the file holds %q (%v), want the output", data, err)
	}
	withUpdate(t, false)
	Check(&r, path, []byte("new\n"))
	if len(r.errors) != 0 {
		t.Errorf("the rewritten file does not match: %q", r.errors)
	}
}

func TestDiff(t *testing.T) {
	for _, c := range []struct{ want, got, diff string }{
		{"a\nb\nc", "a\nb\nc", ""},
		{"a\nb\nc", "a\nc", "- b\n"},
		{"a\nc", "a\nb\nc", "+ b\n"},
		{"a\nb", "x\ny", "- a\n- b\n+ x\n+ y\n"},
	} {
		if d := Diff(c.want, c.got); d != c.diff {
			t.Errorf("Diff(%q, %q) = %q, want %q", c.want, c.got, d, c.diff)
		}
	}
}
