package cmd

import (
	"net"
	"strings"
	"testing"
)

// A server echoes a setting back in its error ("database \"...\" does not
// exist"); when the password was typed there too, every command's error
// still hides it, because they all scrub through internal/pgsecret:
// inspect, race sql, and race http's --effect-sql oracle.
func TestEchoedPasswordIsScrubbedEverywhere(t *testing.T) {
	srv := testServer(t)
	password := newSecret(t)
	dsn := "postgres://postgres:" + password + "@" + net.JoinHostPort(srv.host, srv.port) + "/" + password + "?sslmode=disable"
	for _, args := range [][]string{
		{"inspect", "--dsn", dsn},
		{"inspect", "--dsn", dsn, "--format", "json", "--data"},
		{"race", "sql", "--dsn", dsn, "SELECT 1"},
		{"race", "http", "-H", "Idempotency-Key: {{key}}", "--effect-sql", "SELECT count(*) FROM pg_class WHERE relname = $1", "--dsn", dsn, "http://127.0.0.1:" + closedPort(t) + "/pay"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			code, out, errOut := runInspectCmd(t, nil, args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, errOut)
			}
			if !strings.Contains(errOut, "does not exist") {
				t.Fatalf("not the server's echo, so the test proves nothing:\n%s", errOut)
			}
			assertNoSecret(t, "text", map[string]string{"stdout": out, "stderr": errOut}, password)
		})
	}
}
