package cmd

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/prove"
)

// TestProveWithoutAServerExits2: --prove with no scratch DSN and no initdb
// anywhere it looks stops with exit status 2 and says which to give.
func TestProveWithoutAServerExits2(t *testing.T) {
	saved := debianServerRoot
	debianServerRoot = filepath.Join(t.TempDir(), "no-postgresql")
	defer func() { debianServerRoot = saved }()
	empty := t.TempDir()
	r := invocation{env: map[string]string{"PATH": empty}}.run(t, "lint", "--prove", writeFile(t, "hole.sql", holeSQL))
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder,
		"--prove needs a scratch PostgreSQL: give --scratch-dsn (or IDEMCHECK_SCRATCH_DSN)",
		"initdb and pg_ctl on PATH, under pg_config --bindir, or in /usr/lib/postgresql/<N>/bin")
	assertLacks(t, "stdout", r.stdout, "nullable-key")
}

// TestScratchDSNNeedsProve: --scratch-dsn alone is a usage error, not a
// silently ignored flag.
func TestScratchDSNNeedsProve(t *testing.T) {
	r := run(t, "lint", "--scratch-dsn", "postgres://x@127.0.0.1:1/x", writeFile(t, "hole.sql", holeSQL))
	assertCode(t, r, ExitUsage)
	assertContains(t, "stderr", r.stder, "give --prove too")
}

// sentinel listens on a loopback port and counts the connections it gets:
// the server that the environment's PG variables point at, which --prove
// must leave alone.
func sentinel(t *testing.T) (port int, connections *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	connections = &atomic.Int64{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			connections.Add(1)
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, connections
}

// TestProveStartsItsOwnCluster: with initdb and no scratch DSN, --prove
// starts a throwaway cluster on a free loopback port, proves the hole
// there, and removes it; the servers the environment names (here a
// listener that counts connections, standing for the one on 5432) see no
// connection. As root (CI) the cluster runs as the postgres user.
func TestProveStartsItsOwnCluster(t *testing.T) {
	// The version matrix (scripts/pg-versions.sh) names each version's
	// programs; elsewhere they are found as --prove finds them.
	bin := os.Getenv("IDEMCHECK_TEST_PG_BINDIR")
	if bin == "" {
		bin, _ = prove.FindServerPrograms(prove.Config{DebianRoot: prove.DefaultDebianRoot})
	}
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no initdb on this machine; CI=true, so this is a failure, not a skip")
		}
		t.Skip("no initdb and pg_ctl on this machine")
	}
	file := writeFile(t, "hole.sql", holeSQL)
	tmp, err := os.MkdirTemp("", "idemcheck-prove-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	// The cluster's own directory goes here; as root, the postgres user
	// must be able to reach it.
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	port, connections := sentinel(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	env := map[string]string{
		"PATH": bin, "PGHOST": "127.0.0.1", "PGPORT": strconv.Itoa(port), "DATABASE_URL": "postgres://postgres@" + addr + "/postgres",
		"IDEMCHECK_TEST_DSN": "postgres://postgres@" + addr + "/postgres",
	}
	r := invocation{env: env}.run(t, "lint", "--prove", "--color", "never", file)
	assertCode(t, r, ExitFindings)
	// Before 15 the first fix (NULLS NOT DISTINCT) gives way to the next.
	assertContains(t, "stdout", strings.Join(strings.Fields(r.stdout), " "), "proven: PostgreSQL ", "accepted both rows;", "it refused them (23505 on the second row)",
		"prove: 1 proven, 0 refuted, 0 not proven on PostgreSQL")
	m := regexp.MustCompile(`a throwaway cluster on 127\.0\.0\.1:(\d+)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("the report does not say it ran on a throwaway cluster:\n%s", r.stdout)
	}
	t.Logf("%s", regexp.MustCompile(`prove: .*`).FindString(r.stdout))
	if m[1] == "5432" || m[1] == strconv.Itoa(port) {
		t.Errorf("the cluster ran on port %s, a server it was not to touch", m[1])
	}
	if n := connections.Load(); n != 0 {
		t.Errorf("the server the environment names got %d connections", n)
	}
	if os.Geteuid() == 0 {
		assertContains(t, "stdout", strings.Join(strings.Fields(r.stdout), " "), "run as postgres")
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "idemcheck-prove-*")); len(left) != 0 {
		t.Errorf("the cluster's directory was left behind: %v", left)
	}
}

// TestInspectProve: inspect --prove runs the witnesses of a live catalog
// on the scratch server, and refuses a scratch DSN that is the database
// being inspected.
func TestInspectProve(t *testing.T) {
	dsn := inspectTestDB(t, inspectHoleSchema)
	code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--prove", "--scratch-dsn", pgtest.DSN(), "--color", "never")
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitFindings, out, errOut)
	}
	for _, want := range []string{"proven: PostgreSQL", "prove: 1 proven, 0 refuted, 0 not proven", "(--scratch-dsn)"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runInspectCmd(t, nil, "inspect", "--dsn", dsn, "--prove", "--scratch-dsn", dsn)
	if code != ExitUsage || !strings.Contains(errOut, "--scratch-dsn names the database being inspected") {
		t.Errorf("a scratch DSN that is the inspected database: exit %d\n%s%s", code, out, errOut)
	}
}
