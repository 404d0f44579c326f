package newfindings

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Changes are the files a change touched: added or changed since the merge
// base of a revision and HEAD, staged or not, and files git does not track
// yet (as golangci-lint's --new-from-rev counts them). A file lint reads
// from an untracked directory is new, so its findings are too.
type Changes struct {
	// Rev is the revision as given, and Base the merge base it resolved to.
	Rev, Base string
	// Root is the work tree's top directory, symlinks resolved.
	Root  string
	files map[string]bool // absolute, symlinks resolved
}

// Len is the number of changed files.
func (c *Changes) Len() int { return len(c.files) }

// Contains reports whether path (relative to the working directory, or
// absolute) is one of the changed files.
func (c *Changes) Contains(path string) bool {
	return c.files[resolve(path)]
}

// resolve makes a path absolute with its symlinks resolved, so that a path
// lint was given and a path git printed compare equal; a path that does not
// exist (stdin) is only made absolute.
func resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// ChangedSince asks git, in dir, which files changed since the merge base of
// rev and HEAD. Its errors are for people: outside a work tree, an unknown
// revision, and a shallow clone that lacks the merge base each say what to
// do.
func ChangedSince(ctx context.Context, dir, rev string) (*Changes, error) {
	if strings.TrimSpace(rev) == "" {
		return nil, errors.New("--new-from-rev needs a revision (a branch, tag or commit; HEAD for uncommitted changes)")
	}
	g := gitIn{ctx: ctx, dir: dir}
	top, err := g.run("rev-parse", "--show-toplevel")
	if err != nil {
		var missing *exec.Error
		if errors.As(err, &missing) {
			return nil, fmt.Errorf("--new-from-rev needs git on PATH: %v", missing.Err)
		}
		return nil, fmt.Errorf("--new-from-rev needs a git work tree, and %s is not inside one (%v)", g.where(), err)
	}
	root := resolve(strings.TrimSpace(top))
	shallow := func() bool {
		out, err := g.run("rev-parse", "--is-shallow-repository")
		return err == nil && strings.TrimSpace(out) == "true"
	}
	if _, err := g.run("rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}"); err != nil {
		msg := fmt.Sprintf("--new-from-rev %s: no such commit in this clone", rev)
		if shallow() {
			msg += "; the clone is shallow, so fetch the history that holds it (" + fetchHint + ")"
		} else {
			msg += "; fetch it first (git fetch origin " + rev + ")"
		}
		return nil, errors.New(msg)
	}
	base, err := g.run("merge-base", "--end-of-options", rev, "HEAD")
	if err != nil {
		if shallow() {
			return nil, fmt.Errorf("--new-from-rev %s: %s and HEAD have no merge base in this shallow clone; fetch the history between them (%s)", rev, rev, fetchHint)
		}
		return nil, fmt.Errorf("--new-from-rev %s: %s and HEAD have no common history (%v)", rev, rev, err)
	}
	base = strings.TrimSpace(base)
	c := &Changes{Rev: rev, Base: base, Root: root, files: map[string]bool{}}
	// The work tree against the merge base: committed, staged and unstaged
	// changes at once. Renames count as new files.
	diff, err := g.run("diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--diff-filter=d", base, "--")
	if err != nil {
		return nil, fmt.Errorf("--new-from-rev %s: %v", rev, err)
	}
	untracked, err := g.run("ls-files", "--others", "--exclude-standard", "-z", "--full-name", "--", ":/")
	if err != nil {
		return nil, fmt.Errorf("--new-from-rev %s: %v", rev, err)
	}
	for _, list := range []string{diff, untracked} {
		for _, name := range strings.Split(list, "\x00") {
			if name != "" {
				c.files[resolve(filepath.Join(root, filepath.FromSlash(name)))] = true
			}
		}
	}
	return c, nil
}

// fetchHint names the usual ways to get the history a merge base needs.
const fetchHint = "actions/checkout with fetch-depth: 0, GitLab's GIT_DEPTH: 0, or git fetch --unshallow"

// gitIn runs git commands in one directory.
type gitIn struct {
	ctx context.Context
	dir string
}

func (g gitIn) where() string {
	if g.dir != "" {
		return g.dir
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "the working directory"
}

// run returns git's standard output; a failure carries git's own message.
func (g gitIn) run(args ...string) (string, error) {
	cmd := exec.CommandContext(g.ctx, "git", args...)
	cmd.Dir = g.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if msg := strings.TrimSpace(stderr.String()); msg != "" {
				return "", errors.New("git: " + firstLine(msg))
			}
			return "", fmt.Errorf("git %s: %v", args[0], err)
		}
		return "", err
	}
	return stdout.String(), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
