package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/gittest"
	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

// TestREADME runs the README's shell blocks and checks what they show, so
// that the front door cannot drift from the tool. The rules, which the
// README's "Development" section repeats for people editing it:
//
//   - A ```sh block is a script: it runs with bash -e and must exit 0, or
//     with the status a <!-- readme-test: exit N --> comment before it gives.
//   - A ```text block whose first line starts with "$ " is a transcript:
//     each "$ command" (continued by lines after a trailing backslash) runs
//     on its own, and what it prints (stdout and stderr together) must be
//     the lines shown under it. The exit comment lists one status per
//     command.
//   - A <!-- readme-test: skip REASON --> comment exempts the next block and
//     must name why. Other blocks (yaml, sql, text that is not a
//     transcript) are not shell; the integration tests read the CI ones.
//   - Shown output is compared after one mask: a number followed by a time
//     unit (ns, µs, us, ms, s, m, h), which is a duration or a spread,
//     becomes <duration> on both sides. A shown line that is only "..."
//     stands for any lines, up to the first one equal to the next shown
//     line; "..." inside a shown line stands for any text.
//   - Blocks run in README order, in a scratch git repository that holds the
//     example tree at db/migrations (committed) beside links to this
//     repository's testdata and scripts, with the substitutions below.
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every shell block of the README")
	}
	blocks := readmeBlocks(t)
	play := newPlayground(t)
	ran := 0
	for _, b := range blocks {
		if b.skip != "" || !b.runnable() {
			continue
		}
		ran++
		t.Run(fmt.Sprintf("README.md:%d", b.line), func(t *testing.T) { play.runBlock(t, b) })
	}
	if ran < 10 {
		t.Errorf("ran %d README blocks; the README has lost its examples or this test its way of finding them", ran)
	}
	play.checkVersionNamesCommit(t)
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

// Every block that is not run says why, and the substitutions the test
// makes are the ones the README lists.
func TestREADMEExemptionsAndSubstitutions(t *testing.T) {
	for _, b := range readmeBlocks(t) {
		if b.skipMarked && strings.TrimSpace(b.skip) == "" {
			t.Errorf("README.md:%d: a skipped block must name its reason: <!-- readme-test: skip REASON -->", b.line)
		}
		if b.info == "sh" || b.info == "bash" || b.info == "console" {
			continue
		}
		if b.exit != nil && !b.runnable() {
			t.Errorf("README.md:%d: an exit comment on a block that is not run", b.line)
		}
	}
	readme := readFile(t, "README.md")
	for _, s := range readmeSubstitutions {
		if !strings.Contains(readme, "| `"+s.from+"` |") {
			t.Errorf("README.md does not list the substitution of `%s` (Development, \"The README test\")", s.from)
		}
	}
}

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
}

// block is one fenced block of the README.
type block struct {
	line       int // of the opening fence
	info       string
	text       string
	skip       string // the reason given
	skipMarked bool
	exit       []int // from <!-- readme-test: exit N ... -->
}

func (b block) transcript() bool { return b.info == "text" && strings.HasPrefix(b.text, "$ ") }

func (b block) runnable() bool { return b.info == "sh" || b.transcript() }

var marker = regexp.MustCompile(`^<!--\s*readme-test:\s*(skip|exit)\b\s*(.*?)\s*-->$`)

// readmeBlocks parses README.md's fenced blocks and the marker comments
// right before them (blank lines between are allowed).
func readmeBlocks(t *testing.T) []block {
	t.Helper()
	lines := strings.Split(readFile(t, "README.md"), "\n")
	var out []block
	var pending block
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := marker.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			if m[1] == "skip" {
				pending.skipMarked, pending.skip = true, m[2]
				continue
			}
			for _, f := range strings.Fields(m[2]) {
				n, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("README.md:%d: exit comment %q: want numbers", i+1, m[2])
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
		b.line, b.info = i+1, strings.TrimSpace(strings.TrimPrefix(line, "```"))
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
	repo, dir, bin, dsn string
	env                 []string
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
	p.dsn = throwawayDSN(t)
	repo := gittest.New(t)
	p.dir = repo.Dir
	copyDir(t, filepath.Join(p.repo, "testdata/examples/payments/migrations"), filepath.Join(p.dir, "db/migrations"))
	repo.Commit("the example tree")
	for _, link := range []string{"testdata", "scripts"} {
		if err := os.Symlink(filepath.Join(p.repo, link), filepath.Join(p.dir, link)); err != nil {
			t.Fatal(err)
		}
	}
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
	return p
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// throwawayDSN names a database on the test server for the example
// database; scripts/example-db.sh creates it, the test drops it.
func throwawayDSN(t *testing.T) string {
	t.Helper()
	admin := pgtest.Connect(t) // skips, or fails under CI=true, without a server
	u, err := url.Parse(pgtest.DSN())
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("idemcheck_readme_%d", os.Getpid())
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
	if !b.transcript() {
		want := 0
		if len(b.exit) > 0 {
			want = b.exit[0]
		}
		res := runShell(t, p.dir, p.substitute(b.text), env, "-e")
		if res.code != want {
			t.Errorf("README.md:%d: the block exited %d, want %d; its output:\n%s", b.line, res.code, want, res.output)
		}
		return
	}
	cmds := splitTranscript(b)
	if len(b.exit) > 0 && len(b.exit) != len(cmds) {
		t.Fatalf("README.md:%d: %d commands but %d exit statuses in the comment", b.line, len(cmds), len(b.exit))
	}
	for i, c := range cmds {
		want := 0
		if len(b.exit) > 0 {
			want = b.exit[i]
		}
		res := runShell(t, p.dir, p.substitute(c.command), env)
		if res.code != want {
			t.Errorf("README.md:%d: `%s` exited %d, want %d", c.line, firstLine(c.command), res.code, want)
		}
		if problem := compareOutput(c.shown, res.output, c.line+len(strings.Split(c.command, "\n"))); problem != "" {
			t.Errorf("README.md:%d: `%s`: %s\nits whole output:\n%s", c.line, firstLine(c.command), problem, res.output)
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
