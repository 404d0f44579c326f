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
	old := version
	version = "v9.8.7"
	t.Cleanup(func() { version = old })
	r := run(t, "version")
	assertCode(t, r, ExitOK)
	assertContains(t, "stdout", r.stdout, "idemcheck v9.8.7\n")
}

func TestVersionRejectsArguments(t *testing.T) {
	assertCode(t, run(t, "version", "extra"), ExitUsage)
}
