package cmd

import (
	"fmt"
	"testing"

	"github.com/idemcheck/idemcheck/sqlparse"
)

func TestVersion(t *testing.T) {
	r := run(t, "version")
	assertCode(t, r, ExitOK)
	// go test binaries carry no module version, so the default shows.
	assertContains(t, "stdout", r.stdout, "idemcheck devel\n", "commit:", "pg_query_go:",
		fmt.Sprintf("PostgreSQL grammar: %d\n", sqlparse.GrammarVersion))
}

func TestVersionFromLinker(t *testing.T) {
	oldVersion, oldCommit := version, commit
	version, commit = "v9.8.7", "0123456789abcdef0123456789abcdef01234567"
	t.Cleanup(func() { version, commit = oldVersion, oldCommit })
	r := run(t, "version")
	assertCode(t, r, ExitOK)
	assertContains(t, "stdout", r.stdout, "idemcheck v9.8.7\n", "commit:             0123456789abcdef0123456789abcdef01234567\n")
}

func TestVersionRejectsArguments(t *testing.T) {
	assertCode(t, run(t, "version", "extra"), ExitUsage)
}
