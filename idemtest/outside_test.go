package idemtest_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

// TestDocsExampleInAnOutsideModule is the acceptance test of the library:
// the Go file of docs/idemtest.md goes into a throwaway module outside
// this repository (a replace directive points at it), on a throwaway
// database, and go test runs there as a user's would:
//
//   - the read-then-write handler fails with the broken sentence, and the
//     claim on a key with a nullable part fails quoting the audit;
//   - the fixed handler passes, through Handler and through HTTP;
//   - with CGO_ENABLED=0 the HTTP tests still pass, and the claim's failure
//     says why no index is named;
//   - under -race and -count=3 the passing tests pass every time, and the
//     broken ones fail every time.
//
// The page's handlers must be the package example's, so that what the
// example shows is what this test proves.
func TestDocsExampleInAnOutsideModule(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "idemtest.md"))
	if err != nil {
		t.Fatal(err)
	}
	src := pageExample(t, string(page))
	example, err := os.ReadFile("example_charges_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"chargeReadThenWrite", "chargeOnConflict", "countRows"} {
		if a, b := funcSource(t, src, name), funcSource(t, string(example), name); a != b {
			t.Errorf("docs/idemtest.md's %s differs from example_charges_test.go's:\n%s\n--- example:\n%s", name, a, b)
		}
	}

	dir := t.TempDir()
	gomod := "module example.com/charges\n\ngo 1.26\n\nrequire github.com/idemcheck/idemcheck v0.0.0\n\n" +
		"replace github.com/idemcheck/idemcheck => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "charges_test.go": []byte(src)} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dsn := pgtest.NewDatabase(t)
	// The module's requirements are resolved from the shared module cache
	// (-mod=mod writes the missing ones into its go.mod); nothing new is
	// downloaded when this repository's dependencies are there.
	goTest := func(env []string, args ...string) (string, bool) {
		t.Helper()
		cmd := goCommand(t, append([]string{"DATABASE_URL=" + dsn, "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off"}, env...),
			append([]string{"test", "-v"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}

	brokenHandler := regexp.MustCompile(`idemtest: gate broken in \d+ of 30 rounds \(round \d+: 2 requests performed the effect; effect count 2\): ` +
		`the claim is a read-then-write, or its unique constraint is missing or has a nullable key part\n`)
	brokenClaim := regexp.MustCompile(`idemtest: gate broken in \d+ of 30 rounds \(round \d+: 2 claims returned a row\): ` +
		`the claim is a read-then-write, or its unique constraint is missing or has a nullable key part\n` +
		`\s+diagnosis: public\.charge_claims\.charge_claims_account_id_kind_address_namespace_key \(account_id, kind, address, namespace\) should have refused: ` +
		`namespace was NULL in the statement's values, and a unique index never finds two NULLs equal\. ` +
		`on-conflict-hole: INSERT INTO charge_claims \.\.\. ON CONFLICT DO NOTHING: .*\. ` +
		`nullable-key: charge_claims\.charge_claims_account_id_kind_address_namespace_key \(account_id, kind, address, namespace\): namespace may be NULL`)
	noCgoClaim := regexp.MustCompile(`idemtest: gate broken in \d+ of 30 rounds \(round \d+: 2 claims returned a row\): .*\n` +
		`\s+diagnosis: no unique index is named: this test binary was built without cgo \(CGO_ENABLED=0\)`)
	type run struct {
		name  string
		env   []string
		args  []string
		times int
		want  []*regexp.Regexp
	}
	for _, r := range []run{
		{"go test", nil, []string{"-count=1", "."}, 1, []*regexp.Regexp{brokenHandler, brokenClaim}},
		{"CGO_ENABLED=0 go test", []string{"CGO_ENABLED=0"}, []string{"-count=1", "."}, 1, []*regexp.Regexp{brokenHandler, noCgoClaim}},
		{"go test -race -count=3", nil, []string{"-race", "-count=3", "."}, 3, []*regexp.Regexp{brokenHandler, brokenClaim}},
	} {
		out, ok := goTest(r.env, r.args...)
		if ok {
			t.Errorf("%s passed, but two of the page's tests must fail:\n%s", r.name, out)
		}
		for test, verdict := range map[string]string{
			"TestChargeReadThenWrite": "FAIL", "TestChargeClaim": "FAIL",
			"TestChargeOnConflict": "PASS", "TestChargeOverHTTP": "PASS",
		} {
			if n := strings.Count(out, "--- "+verdict+": "+test+" "); n != r.times {
				t.Errorf("%s: %s ended with %s %d times, want %d:\n%s", r.name, test, verdict, n, r.times, out)
			}
		}
		for _, re := range r.want {
			if n := len(re.FindAllString(out, -1)); n != r.times {
				t.Errorf("%s: %d failures match\n%s\nwant %d:\n%s", r.name, n, re, r.times, out)
			}
		}
		if strings.Contains(out, "DATA RACE") {
			t.Errorf("%s: the race detector found a data race:\n%s", r.name, out)
		}
	}
}

// repoRoot is the directory of this repository's go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := goCommand(t, nil, "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go env GOMOD: %v %s", err, out)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// pageExample is the Go file of docs/idemtest.md: its first Go block.
func pageExample(t *testing.T, page string) string {
	t.Helper()
	_, code, ok := strings.Cut(page, "\n```go\n")
	if !ok {
		t.Fatal("docs/idemtest.md has no Go code block")
	}
	code, _, ok = strings.Cut(code, "\n```\n")
	if !ok {
		t.Fatal("docs/idemtest.md: the Go code block does not end")
	}
	return code + "\n"
}

// funcSource is the printed declaration of the named function in src.
func funcSource(t *testing.T, src, name string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name+".go", src, parser.ParseComments)
	if err != nil {
		t.Fatalf("parsing the file that should declare %s: %v", name, err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
			var b bytes.Buffer
			if err := printer.Fprint(&b, fset, fd); err != nil {
				t.Fatal(err)
			}
			return fd.Doc.Text() + b.String()
		}
	}
	t.Fatalf("no func %s", name)
	return ""
}
