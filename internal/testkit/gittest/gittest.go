// Package gittest gives tests a throwaway git work tree, isolated from the
// user's and the system's git configuration. Without git the test is
// skipped, except under CI=true, where a missing git is a failure.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a git work tree in a temporary directory.
type Repo struct {
	t   testing.TB
	Dir string
}

// Isolate makes git in this test (and the processes it starts) ignore the
// user's and the system's configuration and commit as a fixed author.
func Isolate(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed (CI=true, so this is a failure, not a skip)")
		}
		t.Skip("git is not installed")
	}
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "idemcheck test", "GIT_AUTHOR_EMAIL": "test@idemcheck.invalid",
		"GIT_COMMITTER_NAME": "idemcheck test", "GIT_COMMITTER_EMAIL": "test@idemcheck.invalid",
	} {
		t.Setenv(k, v)
	}
}

// New initialises an empty repository on branch main.
func New(t testing.TB) *Repo {
	t.Helper()
	Isolate(t)
	r := &Repo{t: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	return r
}

// At wraps an existing work tree, such as a clone.
func At(t testing.TB, dir string) *Repo { return &Repo{t: t, Dir: dir} }

// Git runs git in the work tree and returns its output; a failure fails t.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Write writes a file, relative to the work tree, creating directories.
func (r *Repo) Write(name, content string) {
	r.t.Helper()
	path := filepath.Join(r.Dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Commit stages everything and commits it.
func (r *Repo) Commit(msg string) {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", msg)
}

// Head is the full hash of HEAD.
func (r *Repo) Head() string {
	r.t.Helper()
	return strings.TrimSpace(r.Git("rev-parse", "HEAD"))
}
