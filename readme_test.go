package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/gittest"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

// TestREADME runs the shell blocks of the README and of every page in docs/
// and checks what they show, so that neither the front door nor the
// reference can drift from the tool. The rules, which docs/development.md
// repeats for people editing the pages:
//
//   - A ```sh block is a script: it runs with bash -e and must exit 0, or
//     with the status a <!-- readme-test: exit N --> comment before it gives.
//   - A ```text or ```console block whose first line starts with "$ " is a
//     transcript: each "$ command" (continued by lines after a trailing
//     backslash) runs on its own, and what it prints (stdout and stderr
//     together) must be the lines shown under it. The exit comment lists
//     one status per command.
//   - A <!-- readme-test: background REASON --> comment before a ```sh
//     block starts it in the background, where it serves the rest of the
//     page (a demo target); it is stopped when the page's blocks are done.
//   - A <!-- readme-test: skip REASON --> comment exempts the next block and
//     must name why. Other blocks (yaml, sql, go, text that is not a
//     transcript) are not shell; the integration tests read the CI ones.
//     Every fenced block names its language, so that no shell block goes
//     unseen, and a shell example is never an indented block.
//   - Shown output is compared after one mask: a number followed by a time
//     unit (ns, µs, us, ms, s, m, h), which is a duration or a spread,
//     becomes <duration> on both sides. A shown line that is only "..."
//     stands for any lines, up to the first one equal to the next shown
//     line; "..." inside a shown line stands for any text.
//   - The pages run in turn, README.md first, each page's blocks in order,
//     in one scratch git repository that holds this repository's files
//     (committed), as a clone does, with the substitutions below.
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every shell block of the README and docs/")
	}
	pages := docPages(t)
	play := newPlayground(t)
	for _, page := range pages {
		ran := 0
		blocks := pageBlocks(t, page)
		t.Run(page, func(t *testing.T) {
			defer play.stopBackground(t)
			for _, b := range blocks {
				if b.skip != "" || !b.runnable() {
					continue
				}
				ran++
				t.Run(fmt.Sprintf("%s:%d", page, b.line), func(t *testing.T) { play.runBlock(t, b) })
			}
		})
		if page == "README.md" && ran < 8 {
			t.Errorf("ran %d README blocks; the README has lost its examples or this test its way of finding them", ran)
		}
	}
	play.checkVersionNamesCommit(t)
}

// docPages are the pages whose blocks run: the README first, then docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/ (%v)", err)
	}
	sort.Strings(pages)
	return append([]string{"README.md"}, pages...)
}

// checkVersionNamesCommit holds the install section to its word: built from
// a clone, `idemcheck version` names the clone's commit. Go records it only
// where .git is a directory; a git worktree (where it is a file) gets no
// commit, so there the check is left out with a note.
func (p *playground) checkVersionNamesCommit(t *testing.T) {
	info, err := os.Stat(filepath.Join(p.repo, ".git"))
	if err != nil || !info.IsDir() {
		t.Logf("%s is not a plain clone (.git is not a directory): go install records no commit there, so the version's commit is not checked", p.repo)
		return
	}
	head, err := exec.Command("git", "-C", p.repo, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(p.bin, "idemcheck"), "version").Output()
	if err != nil {
		t.Fatalf("the installed idemcheck: %v", err)
	}
	if want := "commit:             " + strings.TrimSpace(string(head)); !strings.Contains(string(out), want) {
		t.Errorf("built from the clone, idemcheck version says\n%s\nwant a line %q", out, want)
	}
}

// Every block that is not run says why, every fenced block names its
// language, no shell example hides in an indented block, and the
// substitutions the test makes are the ones docs/development.md lists.
func TestREADMEExemptionsAndSubstitutions(t *testing.T) {
	for _, page := range docPages(t) {
		for _, b := range pageBlocks(t, page) {
			if b.skipMarked && strings.TrimSpace(b.skip) == "" {
				t.Errorf("%s:%d: a skipped block must name its reason: <!-- readme-test: skip REASON -->", page, b.line)
			}
			if b.info == "" {
				t.Errorf("%s:%d: a fenced block without a language: name it (sh, text, sql, yaml, go ...) so that the docs test knows whether it runs", page, b.line)
			}
			if b.background != "" && b.info != "sh" {
				t.Errorf("%s:%d: a background comment on a %q block; only sh blocks run in the background", page, b.line, b.info)
			}
			if b.info == "sh" || b.info == "bash" {
				continue
			}
			if b.exit != nil && !b.runnable() {
				t.Errorf("%s:%d: an exit comment on a block that is not run", page, b.line)
			}
		}
		for _, line := range indentedShell(readFile(t, page)) {
			t.Errorf("%s:%d: a shell command in an indented block; fence it (```sh, or ```text for a transcript) so that it runs or says why not", page, line)
		}
	}
	dev := readFile(t, "docs/development.md")
	for _, s := range readmeSubstitutions {
		if !strings.Contains(dev, "| `"+s.from+"` |") {
			t.Errorf("docs/development.md does not list the substitution of `%s` (\"The README and docs test\")", s.from)
		}
	}
}

// indentedShell returns the lines of an indented code block (after a blank
// line, outside fences, four spaces in) that start like a shell command.
func indentedShell(text string) []int {
	var out []int
	fence, prevBlank := false, true
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if !fence && prevBlank && shellStart.MatchString(line) {
			out = append(out, i+1)
		}
		prevBlank = strings.TrimSpace(line) == ""
	}
	return out
}

var shellStart = regexp.MustCompile(`^    (\$ |idemcheck |go (run|test|build|install) |git |psql |scripts/)`)

// readmeSubstitution replaces text in a block before it runs; the README's
// Development section lists each one with its reason.
type readmeSubstitution struct {
	from string
	to   func(p *playground) string
}

var readmeSubstitutions = []readmeSubstitution{
	// @latest cannot be fetched offline, and must be this clone's code.
	{"go install github.com/idemcheck/idemcheck@latest", func(p *playground) string { return "(cd " + p.repo + " && go install .)" }},
	{"git clone https://github.com/idemcheck/idemcheck && cd idemcheck", func(p *playground) string { return "cd " + p.repo }},
	// The example database is a throwaway one on the test server.
	{"postgres://postgres@127.0.0.1/payments", func(p *playground) string { return p.dsn }},
	// payments_demo, the database the read-then-insert target writes to,
	// is one too.
	{"postgres://postgres@127.0.0.1/payments_demo", func(p *playground) string { return p.demoDSN }},
	// The demo targets listen on free loopback ports.
	{"127.0.0.1:8401", func(p *playground) string { return p.port(0) }},
	{"127.0.0.1:8402", func(p *playground) string { return p.port(1) }},
	{"127.0.0.1:8403", func(p *playground) string { return p.port(2) }},
	{"127.0.0.1:8404", func(p *playground) string { return p.port(3) }},
}

// block is one fenced block of a page.
type block struct {
	file       string
	line       int // of the opening fence
	info       string
	text       string
	skip       string // the reason given
	skipMarked bool
	background string // the reason given
	exit       []int  // from <!-- readme-test: exit N ... -->
}

func (b block) transcript() bool {
	return (b.info == "text" || b.info == "console") && strings.HasPrefix(b.text, "$ ")
}

func (b block) runnable() bool { return b.info == "sh" || b.transcript() }

var marker = regexp.MustCompile(`^<!--\s*readme-test:\s*(skip|exit|background)\b\s*(.*?)\s*-->$`)

// ciBlocks are the blocks of the pages that show CI configuration.
func ciBlocks(t *testing.T) []block {
	t.Helper()
	return append(pageBlocks(t, "README.md"), pageBlocks(t, "docs/ci.md")...)
}

// pageBlocks parses a page's fenced blocks and the marker comments right
// before them (blank lines between are allowed).
func pageBlocks(t *testing.T, page string) []block {
	t.Helper()
	lines := strings.Split(readFile(t, page), "\n")
	var out []block
	var pending block
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := marker.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			switch m[1] {
			case "skip":
				pending.skipMarked, pending.skip = true, m[2]
				continue
			case "background":
				if m[2] == "" {
					t.Fatalf("%s:%d: a background comment must say what the block serves", page, i+1)
				}
				pending.background = m[2]
				continue
			}
			for _, f := range strings.Fields(m[2]) {
				n, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("%s:%d: exit comment %q: want numbers", page, i+1, m[2])
				}
				pending.exit = append(pending.exit, n)
			}
			continue
		}
		if !strings.HasPrefix(line, "```") {
			if strings.TrimSpace(line) != "" {
				pending = block{}
			}
			continue
		}
		b := pending
		pending = block{}
		b.file, b.line, b.info = page, i+1, strings.TrimSpace(strings.TrimPrefix(line, "```"))
		var body []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body = append(body, lines[i])
		}
		b.text = strings.Join(body, "\n")
		out = append(out, b)
	}
	return out
}

// playground is where the blocks run.
type playground struct {
	repo, dir, bin, dsn, demoDSN string
	env                          []string
	ports                        []string
	background                   []*exec.Cmd
}

func newPlayground(t *testing.T) *playground {
	t.Helper()
	if _, err := exec.LookPath("psql"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("psql is not installed; the README's example database needs it (CI=true, so this is a failure)")
		}
		t.Skip("psql is not installed; the README's example database needs it")
	}
	gittest.Isolate(t)
	p := &playground{repo: repoRoot(t), bin: t.TempDir()}
	p.dsn = throwawayDSN(t, "")
	p.demoDSN = throwawayDSN(t, "_demo")
	repo := gittest.New(t)
	p.dir = repo.Dir
	copyRepoFiles(t, p.repo, p.dir)
	repo.Commit("the repository's files, as a clone has them")
	home := t.TempDir()
	p.env = []string{
		"PATH=" + p.bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GOBIN=" + p.bin, "HOME=" + home, "GOPATH=" + goEnv(t, "GOPATH"), "GOCACHE=" + goEnv(t, "GOCACHE"),
		"GOMODCACHE=" + goEnv(t, "GOMODCACHE"), "DATABASE_URL=" + p.dsn, "NO_COLOR=1", "LANG=C.UTF-8",
		// A user's machine has no GOFLAGS: go install in a clone records
		// the commit, which is what `idemcheck version` shows.
		"GOFLAGS=",
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "GOPROXY" || k == "CI" || k == "TMPDIR" {
			p.env = append(p.env, kv)
		}
	}
	// The tests' server, which may be a throwaway cluster (pgtest.DSN).
	p.env = append(p.env, "IDEMCHECK_TEST_DSN="+pgtest.DSN())
	t.Cleanup(func() { p.stopBackground(t) })
	return p
}

// copyRepoFiles copies the files git knows in src (tracked, and untracked
// but not ignored, so that a page's new example counts before its commit)
// to dst: what a clone of the work tree holds.
func copyRepoFiles(t *testing.T, src, dst string) {
	t.Helper()
	out, err := exec.Command("git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v", src, err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		info, err := os.Lstat(filepath.Join(src, name))
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or not a file
		}
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// port is the i-th free loopback address that stands for a demo target's
// fixed one.
func (p *playground) port(i int) string {
	for len(p.ports) <= i {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		p.ports = append(p.ports, ln.Addr().String())
		ln.Close()
	}
	return p.ports[i]
}

// startBackground runs a background block in a process group of its own
// and waits until it has said something (a demo target prints its URL once
// it listens), or ended, which fails the block.
func (p *playground) startBackground(t *testing.T, b block, env []string) {
	t.Helper()
	out, err := os.Create(filepath.Join(t.TempDir(), "background.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-e", "-c", p.substitute(b.text))
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = p.dir, env, out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.background = append(p.background, cmd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			data, _ := os.ReadFile(out.Name())
			t.Fatalf("%s:%d: the background block ended (%v) before it served anything:\n%s", b.file, b.line, err, data)
		case <-time.After(100 * time.Millisecond):
			if info, err := out.Stat(); err == nil && info.Size() > 0 {
				return
			}
		}
	}
}

// stopBackground ends the background blocks' process groups: the block's
// shell, go run and the program it built.
func (p *playground) stopBackground(t *testing.T) {
	for _, cmd := range p.background {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil && err != syscall.ESRCH {
			t.Logf("stop the background block %d: %v", cmd.Process.Pid, err)
		}
	}
	p.background = nil
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// throwawayDSN names a database on the test server for an example
// database; the page creates it (scripts/example-db.sh), the test drops it.
func throwawayDSN(t *testing.T, suffix string) string {
	t.Helper()
	admin := pgtest.Connect(t) // skips, or fails under CI=true, without a server
	u, err := url.Parse(pgtest.DSN())
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("idemcheck_readme_%d%s", os.Getpid(), suffix)
	u.Path = "/" + name
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	return u.String()
}

// substitute makes the substitutions; each one replaces its text only where
// it ends a word, so the payments database's URL is not the beginning of
// another database's name.
func (p *playground) substitute(text string) string {
	for _, s := range readmeSubstitutions {
		re := regexp.MustCompile(regexp.QuoteMeta(s.from) + `\b`)
		to := s.to(p)
		text = re.ReplaceAllLiteralString(text, to)
	}
	return text
}

func (p *playground) runBlock(t *testing.T, b block) {
	env := append(os.Environ(), p.env...)
	if b.background != "" {
		p.startBackground(t, b, env)
		return
	}
	if !b.transcript() {
		want := 0
		if len(b.exit) > 0 {
			want = b.exit[0]
		}
		res := runShell(t, p.dir, p.substitute(b.text), env, "-e")
		if res.code != want {
			t.Errorf("%s:%d: the block exited %d, want %d; its output:\n%s", b.file, b.line, res.code, want, res.output)
		}
		return
	}
	cmds := splitTranscript(b)
	if len(b.exit) > 0 && len(b.exit) != len(cmds) {
		t.Fatalf("%s:%d: %d commands but %d exit statuses in the comment", b.file, b.line, len(cmds), len(b.exit))
	}
	for i, c := range cmds {
		want := 0
		if len(b.exit) > 0 {
			want = b.exit[i]
		}
		res := runShell(t, p.dir, p.substitute(c.command), env)
		if res.code != want {
			t.Errorf("%s:%d: `%s` exited %d, want %d", b.file, c.line, firstLine(c.command), res.code, want)
		}
		shown := make([]string, len(c.shown))
		for i, line := range c.shown {
			shown[i] = p.substitute(line) // a demo target's address, as the command had it
		}
		if problem := compareOutput(shown, res.output, c.line+len(strings.Split(c.command, "\n"))); problem != "" {
			t.Errorf("%s:%d: `%s`: %s\nits whole output:\n%s", b.file, c.line, firstLine(c.command), problem, res.output)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// shownCommand is one "$ command" of a transcript and the output under it.
type shownCommand struct {
	line    int // README line of the "$"
	command string
	shown   []string
}

func splitTranscript(b block) []shownCommand {
	var out []shownCommand
	lines := strings.Split(b.text, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !strings.HasPrefix(line, "$ ") {
			if len(out) > 0 {
				out[len(out)-1].shown = append(out[len(out)-1].shown, line)
			}
			continue
		}
		c := shownCommand{line: b.line + 1 + i, command: strings.TrimPrefix(line, "$ ")}
		for strings.HasSuffix(c.command, "\\") && i+1 < len(lines) {
			i++
			c.command += "\n" + lines[i]
		}
		out = append(out, c)
	}
	for i := range out {
		// A blank line separates a command's output from the next "$".
		for n := len(out[i].shown); n > 0 && strings.TrimSpace(out[i].shown[n-1]) == ""; n = len(out[i].shown) {
			out[i].shown = out[i].shown[:n-1]
		}
	}
	return out
}

// durationMask is the one mask: a number with a time unit.
var durationMask = regexp.MustCompile(`\d+(\.\d+)?\s?(ns|µs|us|ms|s|m|h)\b`)

func mask(s string) string { return durationMask.ReplaceAllString(s, "<duration>") }

// compareOutput matches the shown lines against the actual output and
// returns "" or what differs, with the README line of the first shown line
// that did not match (firstLine is the README line of shown[0]).
func compareOutput(shown []string, output string, firstLine int) string {
	actual := strings.Split(strings.TrimRight(output, "\n"), "\n")
	if strings.TrimSpace(output) == "" {
		actual = nil
	}
	j := 0
	for i := 0; i < len(shown); i++ {
		s := mask(shown[i])
		if strings.TrimSpace(s) == "..." {
			if i+1 == len(shown) {
				return ""
			}
			next := lineMatcher(mask(shown[i+1]))
			for j < len(actual) && !next(mask(actual[j])) {
				j++
			}
			if j == len(actual) {
				return fmt.Sprintf("line %d shows %q after \"...\", and the output has no such line", firstLine+i+1, shown[i+1])
			}
			continue
		}
		if j >= len(actual) {
			return fmt.Sprintf("line %d shows %q, and the output ended before it", firstLine+i, shown[i])
		}
		if !lineMatcher(s)(mask(actual[j])) {
			return fmt.Sprintf("line %d shows\n  %q\nand the output has\n  %q", firstLine+i, shown[i], actual[j])
		}
		j++
	}
	if j < len(actual) {
		return fmt.Sprintf("the output goes on after the last line shown, with\n  %q", actual[j])
	}
	return ""
}

// lineMatcher matches one masked line; "..." inside it matches any text.
func lineMatcher(shown string) func(string) bool {
	if !strings.Contains(shown, "...") {
		return func(a string) bool { return a == shown }
	}
	parts := strings.Split(shown, "...")
	for i, part := range parts {
		parts[i] = regexp.QuoteMeta(part)
	}
	re := regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
	return re.MatchString
}
