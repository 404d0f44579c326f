package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/sqlparse/layout"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

func hasErrors(diags []scan.Diagnostic) bool {
	for _, d := range diags {
		if d.Level == scan.Error {
			return true
		}
	}
	return false
}

// childArgsEnv carries the arguments of TestLintChild.
const childArgsEnv = "IDEMCHECK_CHILD_ARGS"

// TestLintChild is not a test of its own: runWithoutDAC and startRace run
// the test binary again with only this function, which runs idemcheck on
// the process's own streams with the arguments it was handed and exits
// with its status.
func TestLintChild(t *testing.T) {
	raw := os.Getenv(childArgsEnv)
	if raw == "" {
		t.Skip("runs only as the child process of runWithoutDAC or startRace")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	os.Exit(Run(SystemStreams(), args))
}

// runWithoutDAC runs idemcheck in a child process that a file mode of 000
// keeps out. Tests run as root in CI, and root reads any file whatever its
// mode; the child then runs under setpriv (util-linux) with the two
// capabilities that override file modes (CAP_DAC_OVERRIDE,
// CAP_DAC_READ_SEARCH) dropped, so that root is refused as any user is.
func runWithoutDAC(t *testing.T, args ...string) result {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	argv := []string{exe, "-test.run=^TestLintChild$"}
	if os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			msg := "running as root, an unreadable file needs setpriv (util-linux) to drop CAP_DAC_OVERRIDE"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg + "; CI=true, so this is a failure, not a skip")
			}
			t.Skip(msg)
		}
		argv = append([]string{setpriv, "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"}, argv...)
	}
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = append(os.Environ(), childArgsEnv+"="+string(raw))
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	err = c.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code: code, stdout: out.String(), stder: errOut.String()}
}

// lock makes p unreadable (mode 000) until the test ends.
func lock(t *testing.T, p string) {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(p, info.Mode().Perm()) })
}

// copyFixture copies a fixture tree, folders and all, into a temporary
// directory.
func copyFixture(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// The child really is refused what a mode of 000 forbids: without this,
// the cases below would prove nothing as root.
func TestRunWithoutDACIsRefused(t *testing.T) {
	p := writeFile(t, "locked.sql", holeSQL)
	lock(t, p)
	r := runWithoutDAC(t, "lint", p)
	assertCode(t, r, ExitUsage)
	assertContains(t, "output", r.stdout+r.stder, p+": cannot read: permission denied")
}

// An unreadable migration file, and an unreadable folder holding
// migrations, is an input error (exit 2) naming it, in every layout: the
// fixture tree of each registered layout, detected and with --layout, once
// with a file locked and once with the folder of a migration locked (a
// version folder in the layouts that have them, the tree's folder in the
// others). Prisma's and diesel's version folders used to be skipped in
// silence, their findings lost.
func TestLintUnreadableInEveryLayout(t *testing.T) {
	for _, d := range layout.Defs() {
		fixture := layoutFixture(string(d.Name))
		if _, err := os.Stat(fixture); err != nil {
			t.Errorf("layout %s has no fixture tree %s", d.Name, fixture)
			continue
		}
		for _, what := range []string{"file", "folder"} {
			t.Run(string(d.Name)+"/"+what, func(t *testing.T) {
				root := copyFixture(t, fixture)
				trees, diags := layout.Discover([]string{root}, layout.DiscoverOptions{})
				if len(trees) == 0 || len(trees[0].Files) == 0 || hasErrors(diags) {
					t.Fatalf("the fixture is not a %s tree: %+v %+v", d.Name, trees, diags)
				}
				tree := trees[len(trees)-1]
				if tree.Layout != d.Name {
					t.Fatalf("the fixture is read as %s", tree.Layout)
				}
				target := tree.Files[len(tree.Files)-1].Path
				if what == "folder" {
					target = filepath.Dir(target)
				}
				lock(t, target)
				for _, args := range [][]string{
					{"lint", "--fail-on", "none", root},
					{"lint", "--fail-on", "none", "--layout", string(d.Name), tree.Root},
				} {
					r := runWithoutDAC(t, args...)
					if r.code != ExitUsage || !strings.Contains(r.stdout+r.stder, "permission denied") {
						t.Errorf("%s with %s %s locked: exit %d, want 2 naming it\nstdout:\n%s\nstderr:\n%s",
							strings.Join(args, " "), what, target, r.code, r.stdout, r.stder)
					}
				}
			})
		}
	}
}

// secretKey is the content of a file outside the tree that links point at:
// it must never reach the output.
const secretKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQ\n-----END OPENSSH PRIVATE KEY-----\n"

// A link whose target lies outside the tree lint was given is not
// followed: a note names it, and nothing of the target reaches the output,
// in text or JSON, whichever file of a layout the link stands for (a
// migration, a version folder's file, a version folder, a plan, a schema
// file). It used to be read, and a parse error quoted the key's first line.
func TestLintDoesNotFollowLinksOutOfTheTree(t *testing.T) {
	outside := t.TempDir()
	key := filepath.Join(outside, "id_ed25519")
	mustWrite(t, key, secretKey)
	keyDir := filepath.Join(outside, "20240301000000_stolen")
	mustWrite(t, filepath.Join(keyDir, "migration.sql"), secretKey)
	cases := []struct {
		name  string
		make  func(root string) (path, link string)
		extra []string
	}{
		{"a migration", func(root string) (string, string) {
			mustWrite(t, filepath.Join(root, "migrations", "001_init.sql"), holeSQL)
			return filepath.Join(root, "migrations"), filepath.Join(root, "migrations", "002_key.sql")
		}, nil},
		{"the file of a Prisma version folder", func(root string) (string, string) {
			m := filepath.Join(root, "prisma", "migrations")
			mustWrite(t, filepath.Join(m, "migration_lock.toml"), "provider = \"postgresql\"\n")
			mustWrite(t, filepath.Join(m, "20240101000000_init", "migration.sql"), holeSQL)
			if err := os.Mkdir(filepath.Join(m, "20240201000000_key"), 0o755); err != nil {
				t.Fatal(err)
			}
			return root, filepath.Join(m, "20240201000000_key", "migration.sql")
		}, nil},
		{"a version folder", func(root string) (string, string) {
			m := filepath.Join(root, "prisma", "migrations")
			mustWrite(t, filepath.Join(m, "migration_lock.toml"), "provider = \"postgresql\"\n")
			mustWrite(t, filepath.Join(m, "20240101000000_init", "migration.sql"), holeSQL)
			return root, filepath.Join(m, "20240301000000_stolen")
		}, nil},
		{"a sqitch plan", func(root string) (string, string) {
			mustWrite(t, filepath.Join(root, "deploy", "users.sql"), holeSQL)
			return root, filepath.Join(root, "sqitch.plan")
		}, []string{"--layout", "sqitch"}},
		{"a Prisma schema", func(root string) (string, string) {
			mustWrite(t, filepath.Join(root, "prisma", "models.prisma"), "model A {\n  id Int @id\n}\n")
			return root, filepath.Join(root, "prisma", "schema.prisma")
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "repo")
			path, link := c.make(root)
			target := key
			if strings.HasSuffix(link, "_stolen") {
				target = keyDir
			}
			mustSymlink(t, target, link)
			for _, format := range []string{"text", "json"} {
				args := append([]string{"lint", "-v", "--format", format, "--fail-on", "none"}, c.extra...)
				r := run(t, append(args, path)...)
				out := r.stdout + r.stder
				for _, secret := range []string{"b3BlbnNzaC1rZXkt", "PRIVATE KEY", "BEGIN OPENSSH"} {
					if strings.Contains(out, secret) {
						t.Errorf("%s: the target's content (%q) is in the output:\n%s", format, secret, out)
					}
				}
				assertContains(t, format+" output", out, "not followed: points outside the tree")
			}
		})
	}
	// A link inside the tree is followed as before.
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "real", "001_hole.sql"), holeSQL)
	mustSymlink(t, filepath.Join(root, "real", "001_hole.sql"), filepath.Join(root, "001_hole.sql"))
	r := run(t, "lint", "--color", "never", filepath.Join(root))
	assertContains(t, "output", r.stdout, "nullable-key")
}

// A folder of a multi-file Prisma schema that cannot be read is an input
// error: its models may be the schema's (it used to be passed over).
func TestLintUnreadablePrismaModels(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "prisma", "schema.prisma"), "datasource db {\n  provider = \"postgresql\"\n  url = env(\"DATABASE_URL\")\n}\n")
	models := filepath.Join(root, "prisma", "models")
	mustWrite(t, filepath.Join(models, "payment.prisma"), "model Payment {\n  id Int @id\n  key String? @unique\n}\n")
	r := runWithoutDAC(t, "lint", "--fail-on", "none", root)
	assertCode(t, r, ExitOK)
	lock(t, models)
	r = runWithoutDAC(t, "lint", "--fail-on", "none", root)
	assertCode(t, r, ExitUsage)
	assertContains(t, "output", r.stdout+r.stder, models+": cannot read: permission denied")
}

// A UTF-8 byte order mark is dropped where the tool that applies the file
// drops it (psql for a plain tree), and positions stay those an editor
// shows; the UTF-16 and not-SQL errors quote nothing of the file.
func TestLintByteOrderMarkAndNotSQL(t *testing.T) {
	p := writeFile(t, "schema.sql", "\xef\xbb\xbf"+holeSQL)
	r := run(t, "lint", "--color", "never", p)
	assertCode(t, r, ExitFindings)
	assertContains(t, "output", r.stdout, p+":7:1: error nullable-key")
	key := writeFile(t, "key.sql", secretKey)
	r = run(t, "lint", "--format", "json", key)
	assertCode(t, r, ExitUsage)
	assertLacks(t, "output", r.stdout+r.stder, "b3BlbnNzaC1rZXkt")
}
