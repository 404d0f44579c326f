package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Prisma reader is held to Prisma's own grammar: each schema of
// testdata/frameworks/prisma_grammar exercises argument forms, comments,
// enums, views, native types and defaults, and `prisma validate` (Prisma
// 6.19, the CLI .ci/run installs) must accept it, so the set cannot drift
// into forms Prisma refuses. lint must read every one of them without an
// input error. The schemas under rejected/ are ones Prisma refuses for
// PostgreSQL: validate must fail on each (the check can fail), and lint
// still reads them without an input error, naming what it skipped.
const prismaGrammarDir = "../testdata/frameworks/prisma_grammar"

func TestPrismaGrammar(t *testing.T) {
	accepted, _ := filepath.Glob(filepath.Join(prismaGrammarDir, "*.prisma"))
	rejected, _ := filepath.Glob(filepath.Join(prismaGrammarDir, "rejected", "*.prisma"))
	if len(accepted) < 6 || len(rejected) < 3 {
		t.Fatalf("the grammar schemas are missing: %d accepted, %d rejected", len(accepted), len(rejected))
	}
	for _, path := range append(accepted, rejected...) {
		r := run(t, "lint", "--color", "never", "-v", path)
		if r.code == ExitUsage || strings.Contains(r.stdout, "cannot read") || strings.Contains(r.stdout, "syntax error") {
			t.Errorf("%s: exit %d, an input error on a schema Prisma's grammar allows:\n%s%s", path, r.code, r.stdout, r.stder)
		}
	}
	prisma := prismaCLI(t)
	t.Run("validate", func(t *testing.T) {
		for _, path := range accepted {
			t.Run(filepath.Base(path), func(t *testing.T) {
				t.Parallel()
				if out, err := prisma.validate(t, path); err != nil {
					t.Errorf("prisma validate refuses %s: %v\n%s", path, err, out)
				}
			})
		}
		for _, path := range rejected {
			t.Run("rejected/"+filepath.Base(path), func(t *testing.T) {
				t.Parallel()
				out, err := prisma.validate(t, path)
				if err == nil || !strings.Contains(out, "schema.prisma:") {
					t.Errorf("prisma validate accepts %s, which is meant to be a schema it refuses (%v):\n%s", path, err, out)
				}
			})
		}
	})
}

// Shape 8 of issue 24: @@index(orgId), a single field without brackets,
// used to give "syntax error at or near ")"" and exit 2 on a valid schema.
// Now the run reports the hole beside it and exits 1.
func TestPrismaIndexWithoutBrackets(t *testing.T) {
	path := filepath.Join(prismaGrammarDir, "index_without_brackets.prisma")
	r := run(t, "lint", "--color", "never", path)
	if r.code != ExitFindings {
		t.Errorf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stder)
	}
	if strings.Contains(r.stdout, "syntax error") || strings.Contains(r.stdout, "input error") {
		t.Errorf("an input error on @@index(orgId):\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "index_without_brackets.prisma:15:3: error nullable-key") || !strings.Contains(r.stdout, "events_idempotency") {
		t.Errorf("the nullable key of line 15 is not reported:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "1 error, 0 warnings") {
		t.Errorf("the summary does not count one finding:\n%s", r.stdout)
	}
}

// An attribute the reader does not know is a note on its own line, and the
// run still reads the rest.
func TestPrismaUnknownAttributeIsANote(t *testing.T) {
	path := filepath.Join(prismaGrammarDir, "rejected", "unknown_attribute.prisma")
	r := run(t, "lint", "--color", "never", "-v", path)
	if r.code != ExitOK {
		t.Errorf("exit %d, want 0\n%s%s", r.code, r.stdout, r.stder)
	}
	if !regexp.MustCompile(`unknown_attribute\.prisma:10:\d+: note: @shardKey on field x is not read by idemcheck; skipped`).MatchString(r.stdout) {
		t.Errorf("no note for @shardKey on line 10:\n%s", r.stdout)
	}
}

// prismaCLI is the Prisma 6.19 that .ci/run installs (IDEMCHECK_PRISMA_DIR
// overrides /opt/idemcheck-prisma); without node or prisma the test is
// skipped, and under CI=true it fails.
type prismaTool struct{ dir string }

func prismaCLI(t *testing.T) prismaTool {
	t.Helper()
	dir := os.Getenv("IDEMCHECK_PRISMA_DIR")
	if dir == "" {
		dir = "/opt/idemcheck-prisma"
	}
	var missing error
	if _, err := exec.LookPath("node"); err != nil {
		missing = err
	}
	for _, p := range []string{"node_modules/prisma/build/index.js", "node_modules/@prisma/adapter-pg/package.json"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil && missing == nil {
			missing = err
		}
	}
	if missing != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node with prisma@6.19 and @prisma/adapter-pg in %s is needed under CI=true (.ci/run installs it): %v", dir, missing)
		}
		t.Skipf("node with prisma@6.19 in %s not available: %v", dir, missing)
	}
	return prismaTool{dir: dir}
}

// validate runs `prisma validate` on a copy of the schema, with the
// WebAssembly engine (engine: 'js'), which needs nothing from the network;
// the adapter's address is never connected to by validate.
func (p prismaTool) validate(t *testing.T, path string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "schema.prisma"), src, 0o644))
	must(os.Symlink(filepath.Join(p.dir, "node_modules"), filepath.Join(dir, "node_modules")))
	must(os.WriteFile(filepath.Join(dir, "prisma.config.ts"), []byte(`import { defineConfig } from 'prisma/config'
import { PrismaPg } from '@prisma/adapter-pg'
export default defineConfig({
  engine: 'js',
  experimental: { adapter: true },
  schema: "schema.prisma",
  adapter: async () => new PrismaPg({ connectionString: "postgres://nobody@127.0.0.1:1/none" }),
})
`), 0o644))
	// Prisma looks for its query engine library, which it would download;
	// validate does not load it, so an empty file stands in.
	must(os.WriteFile(filepath.Join(dir, "no-query-engine.so.node"), nil, 0o644))
	cmd := exec.Command("node", "node_modules/prisma/build/index.js", "validate", "--schema", "schema.prisma")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DATABASE_URL=postgres://nobody@127.0.0.1:1/none", "DIRECT_URL=postgres://nobody@127.0.0.1:1/none",
		"CHECKPOINT_DISABLE=1", "PRISMA_HIDE_UPDATE_MESSAGE=1", "NO_COLOR=1",
		"PRISMA_QUERY_ENGINE_LIBRARY="+filepath.Join(dir, "no-query-engine.so.node"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("prisma validate: %w", err)
	}
	return string(out), nil
}
