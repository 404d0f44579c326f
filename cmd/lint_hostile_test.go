package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// hostileCase is one input that cannot be checked. make creates it in dir
// and returns the path to pass to lint; want are the pieces of the error the
// user must see (the path, the position where there is one, the reason).
type hostileCase struct {
	name string
	make func(t *testing.T, dir string) string
	want func(path string) []string
	long bool // skipped by -short: writes 100 MB
}

// hostileFixture copies a committed file from testdata/hostile.
func hostileFixture(name string) func(t *testing.T, dir string) string {
	return func(t *testing.T, dir string) string {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

func hostileCases() []hostileCase {
	return []hostileCase{
		{name: "empty file", make: hostileFixture("empty.sql"),
			want: func(p string) []string { return []string{"error: " + p + ": empty file: no SQL statements to check"} }},
		{name: "binary file", make: hostileFixture("binary.sql"),
			want: func(p string) []string { return []string{p + ":1:16: error: binary file (NUL byte), not SQL"} }},
		{name: "invalid UTF-8", make: hostileFixture("invalid_utf8.sql"),
			want: func(p string) []string { return []string{p + ":1:17: error: invalid UTF-8 byte 0xe9 in a statement"} }},
		{name: "unterminated quote", make: hostileFixture("unterminated_quote.sql"),
			want: func(p string) []string {
				return []string{p + ":3:21: error: unterminated quoted string starting at " + p + ":3:21"}
			}},
		{name: "unterminated dollar quote", make: hostileFixture("unterminated_dollar.sql"),
			want: func(p string) []string {
				return []string{p + ":3:61: error: unterminated dollar-quoted string $body$ starting at " + p + ":3:61"}
			}},
		{name: "100 MB file", long: true, make: writeHugeFile,
			want: func(p string) []string { return []string{"error: " + p + ": cannot read: larger than 64 MiB"} }},
		{name: "nested 10,000 levels", make: writeDeepStatement,
			want: func(p string) []string { return []string{p + ":1:", "error: memory exhausted", "(SQLSTATE 42601)"} }},
		{name: "symlink loop to itself", make: func(t *testing.T, dir string) string {
			a, b := filepath.Join(dir, "a.sql"), filepath.Join(dir, "b.sql")
			mustSymlink(t, "b.sql", a)
			mustSymlink(t, "a.sql", b)
			return a
		}, want: func(p string) []string {
			return []string{"error: " + p + ": cannot read: too many levels of symbolic links"}
		}},
		{name: "directory symlink loop", make: func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "project")
			mustWrite(t, filepath.Join(root, "db", "migrations", "1_a.up.sql"), infoSQL)
			mustSymlink(t, "..", filepath.Join(root, "db", "again"))
			return root
		}, want: func(p string) []string {
			return []string{"error: " + filepath.Join(p, "db", "again") + ": symbolic link loop"}
		}},
		{name: "unreadable file", make: makeUnreadable,
			want: func(p string) []string { return []string{"error: " + p + ": cannot read: "} }},
		{name: "directory named x.sql", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "x.sql")
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, want: func(p string) []string { return []string{"error: " + p + ": no SQL migrations found"} }},
		{name: "path that does not exist", make: func(t *testing.T, dir string) string {
			return filepath.Join(dir, "missing.sql")
		}, want: func(p string) []string { return []string{"error: " + p + ": no such file or directory"} }},
		{name: "named pipe", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "pipe.sql")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, want: func(p string) []string {
			return []string{"error: " + p + ": cannot read: not a regular file (a named pipe)"}
		}},
		{name: "endless device", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "zero.sql")
			mustSymlink(t, "/dev/zero", p)
			return p
		}, want: func(p string) []string {
			return []string{"error: " + p + ": cannot read: not a regular file (a device)"}
		}},
		{name: "UTF-16 file", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "utf16.sql")
			mustWrite(t, p, "\xff\xfeC\x00R\x00E\x00A\x00T\x00E\x00")
			return p
		}, want: func(p string) []string {
			return []string{p + ":1:1: error: UTF-16 (little-endian, with a byte order mark) text, not UTF-8"}
		}},
		{name: "UTF-8 byte order mark that golang-migrate passes on", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "1_bom.up.sql")
			mustWrite(t, p, "\xef\xbb\xbf"+infoSQL)
			return p
		}, want: func(p string) []string {
			return []string{"error: " + p + ":1:1: starts with a UTF-8 byte order mark (EF BB BF), which golang-migrate sends to PostgreSQL as it is"}
		}},
		{name: "a key named .sql", make: func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "key.sql")
			mustWrite(t, p, secretKey)
			return p
		}, want: func(p string) []string {
			return []string{p + ":2:1: error: syntax error at its first word, which is no SQL keyword (none of the text is quoted"}
		}},
		{name: "binary file inside a tree", make: func(t *testing.T, dir string) string {
			root := filepath.Join(dir, "migrations")
			mustWrite(t, filepath.Join(root, "1_users.up.sql"), infoSQL)
			mustWrite(t, filepath.Join(root, "2_blob.up.sql"), "\x00\x01\x02")
			return root
		}, want: func(p string) []string {
			return []string{"error: " + filepath.Join(p, "2_blob.up.sql") + ": cannot read: binary file (NUL byte at line 1, column 1), not SQL",
				"users_email"}
		}},
	}
}

// TestLintHostileInput runs each hostile input beside a good file: the
// hostile one gets a clear error naming it, the good one is still checked
// and reported, and the exit status is 2.
func TestLintHostileInput(t *testing.T) {
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("writes a 100 MB file; runs without -short (as CI does)")
			}
			dir := t.TempDir()
			good := filepath.Join(dir, "good.sql")
			mustWrite(t, good, holeSQL)
			hostile := tc.make(t, dir)
			r := run(t, "lint", good, hostile)
			assertCode(t, r, ExitUsage)
			assertContains(t, "output", r.stdout+r.stder, tc.want(hostile)...)
			// The good file beside it is still checked and reported.
			assertContains(t, "output", r.stdout, good+":7:1: error nullable-key")

			r = run(t, "lint", "--format", "json", good, hostile)
			assertCode(t, r, ExitUsage)
			assertHostileJSON(t, r.stdout, hostile)

		})
	}
}

// TestLintHostileStdin: stdin that is empty or binary is an error too.
func TestLintHostileStdin(t *testing.T) {
	for name, in := range map[string]string{"empty": " \n", "binary": "SELECT 1;\x00"} {
		t.Run(name, func(t *testing.T) {
			r := invocation{stdin: in}.run(t, "lint", "-")
			assertCode(t, r, ExitUsage)
			assertContains(t, "output", r.stdout+r.stder, "<stdin>")
		})
	}
}

// assertHostileJSON checks the JSON report of a run with a good and a
// hostile path: an input error names the hostile path, and the good file's
// finding is there.
func assertHostileJSON(t *testing.T, out, hostile string) {
	t.Helper()
	var doc struct {
		Findings []struct{ Rule, Object string }
		Errors   []struct {
			Position *struct{ File string }
			Message  string
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("JSON report does not parse: %v\n%s", err, out)
	}
	named := false
	for _, e := range doc.Errors {
		named = named || strings.Contains(e.Message, hostile) || e.Position != nil && strings.HasPrefix(e.Position.File, hostile)
	}
	if !named {
		t.Errorf("no JSON error names %s: %+v", hostile, doc.Errors)
	}
	found := false
	for _, f := range doc.Findings {
		found = found || f.Rule == "nullable-key" && f.Object == "public.events.index_unique_transaction_id"
	}
	if !found {
		t.Errorf("JSON report lacks the good file's nullable-key finding: %+v", doc.Findings)
	}
}

// writeHugeFile writes a file of valid SQL just over 100 MB.
func writeHugeFile(t *testing.T, dir string) string {
	p := filepath.Join(dir, "huge.sql")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := []byte("CREATE TABLE IF NOT EXISTS filler (id bigint PRIMARY KEY, note text);\n")
	chunk := bytes.Repeat(line, (1<<20)/len(line)+1)
	for written := 0; written < 100<<20; written += len(chunk) {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// writeDeepStatement writes one CREATE TABLE whose CHECK nests 10,000
// parentheses deep.
func writeDeepStatement(t *testing.T, dir string) string {
	p := filepath.Join(dir, "deep.sql")
	const depth = 10000
	sql := "CREATE TABLE deep (a int CHECK (" + strings.Repeat("(", depth) + "a > 0" + strings.Repeat(")", depth) + "));\n"
	mustWrite(t, p, sql)
	return p
}

// makeUnreadable makes a file that cannot be read. Root reads any file
// whatever its mode, so as root (CI) the file is a link to /proc/self/mem,
// whose first page is never mapped: reading it fails with EIO.
func makeUnreadable(t *testing.T, dir string) string {
	p := filepath.Join(dir, "locked.sql")
	if os.Geteuid() == 0 {
		mustSymlink(t, "/proc/self/mem", p)
		return p
	}
	mustWrite(t, p, infoSQL)
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustWrite(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestLintDeepCheckStaysBounded: a CHECK nested thousands of levels deep
// parses, but the null-safety reasoner does not evaluate it (it took minutes
// before the bound); the hole is then reported, never wrongly proven closed.
// The same CHECK a few levels deep does prove the column NOT NULL.
func TestLintDeepCheckStaysBounded(t *testing.T) {
	schema := func(nots int) string {
		return "CREATE TABLE claims (org bigint NOT NULL, ref text, CHECK (" + strings.Repeat("NOT ", nots) + "(ref IS NOT NULL)));\n" +
			"CREATE UNIQUE INDEX claims_org_ref ON claims (org, ref);\n"
	}
	shallow := run(t, "lint", writeFile(t, "shallow.sql", schema(2)))
	assertCode(t, shallow, ExitOK)
	deep := run(t, "lint", writeFile(t, "deep.sql", schema(3000)))
	assertCode(t, deep, ExitFindings)
	assertContains(t, "output", deep.stdout, "nullable-key", "claims.claims_org_ref")
}

// TestLintAllHostileInputsAtOnce passes every hostile input and the good
// file in one run: each gets its own error, and the good file its finding.
func TestLintAllHostileInputsAtOnce(t *testing.T) {
	base := t.TempDir()
	good := filepath.Join(base, "good.sql")
	mustWrite(t, good, holeSQL)
	args := []string{"lint", good}
	var wants []string
	for i, tc := range hostileCases() {
		if tc.long {
			continue // the 100 MB case runs on its own above
		}
		dir := filepath.Join(base, fmt.Sprint(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := tc.make(t, dir)
		args = append(args, p)
		wants = append(wants, tc.want(p)...)
	}
	r := run(t, args...)
	assertCode(t, r, ExitUsage)
	assertContains(t, "output", r.stdout+r.stder, wants...)
	assertContains(t, "output", r.stdout, good+":7:1: error nullable-key")
}
