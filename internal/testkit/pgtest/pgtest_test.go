package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestMain doubles as the helper process of
// TestThrowawayClusterEndsWithTheProcess: with PGTEST_HOLD_CLUSTER=1 it
// starts a cluster, says where, and exits without stopping it.
func TestMain(m *testing.M) {
	if os.Getenv("PGTEST_HOLD_CLUSTER") == "1" {
		dsn, c, why := startThrowaway()
		if c == nil {
			fmt.Println("NONE " + why)
		} else {
			fmt.Printf("CLUSTER %d %s %s\n", c.Port, c.Dir, dsn)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// With no server given, the tests start their own: a throwaway cluster
// that answers, and that is stopped and removed when the test process
// ends, even by os.Exit, which runs no cleanup.
func TestThrowawayClusterEndsWithTheProcess(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PGTEST_HOLD_CLUSTER=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var port int
	var dir, dsn string
	for _, line := range strings.Split(string(out), "\n") {
		if why, ok := strings.CutPrefix(line, "NONE "); ok {
			missing(t, "no throwaway cluster could start here: %s", why)
		}
		if _, err := fmt.Sscanf(line, "CLUSTER %d %s %s", &port, &dir, &dsn); err == nil {
			break
		}
	}
	if port == 0 {
		t.Fatalf("the helper printed no cluster:\n%s", out)
	}
	// The helper has exited: its watchdog stops the server and removes
	// the directory. Wait for both (pg_ctl stop takes a moment).
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, dialErr := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if c != nil {
			c.Close()
		}
		_, statErr := os.Stat(dir)
		if dialErr != nil && os.IsNotExist(statErr) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("60 s after the process that started it ended, the cluster on port %d still answers (%v) or %s still exists (%v)", port, dialErr == nil, dir, statErr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// A throwaway cluster is a real server: it takes a database as the tests'
// NewDatabase makes one, and a connection per test at once.
func TestThrowawayClusterServes(t *testing.T) {
	dsn, c, why := startThrowaway()
	if c == nil {
		missing(t, "no throwaway cluster could start here: %s", why)
	}
	defer c.ReleaseWatchdog()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("%s (%s): %v", dsn, why, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE pgtest_cluster_check"); err != nil {
		t.Fatal(err)
	}
	var max int
	if err := conn.QueryRow(ctx, "SELECT current_setting('max_connections')::int").Scan(&max); err != nil || max < 100 {
		t.Errorf("max_connections %d (%v): the tests need about 100 sessions at once", max, err)
	}
}

// missing skips, or fails under CI=true, where the server programs are
// installed by .ci/run.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI=true: .ci/run installs PostgreSQL)", args...)
	}
	t.Skipf(format, args...)
}
