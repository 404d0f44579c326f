package cmd

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

// TestRaceSQLSecrets runs race sql with the password in the URL, in
// key=value settings, in PGPASSWORD and in a .pgpass file, against success,
// a wrong password and an unreachable host, in text and JSON with -v, and
// finds the password in no byte of stdout or stderr.
func TestRaceSQLSecrets(t *testing.T) {
	password := newSecret(t)
	setupSecretRole(t, password)
	dsn := pgtest.NewDatabase(t, raceSQLSchema,
		"GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO "+secretRole,
		"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO "+secretRole)
	db := databaseName(t, dsn)
	srv := testServer(t)
	wrong := newSecret(t)
	targets := []struct {
		name           string
		port, password string
		code           int
	}{
		{"success", srv.port, password, ExitOK},
		{"wrong password", srv.port, wrong, ExitUsage},
		{"unreachable host", closedPort(t), password, ExitUsage},
	}
	const claim = `INSERT INTO payments (idempotency_key, amount) VALUES ({{key}}, 100) ON CONFLICT DO NOTHING RETURNING id`
	for _, way := range secretWays {
		for _, target := range targets {
			t.Run(way.name+"/"+target.name, func(t *testing.T) {
				dsnArg, env := way.prepare(t, srv.host, target.port, db, target.password)
				for _, format := range []string{"text", "json"} {
					code, out, errOut := runInspectCmd(t, env, "race", "sql", "--dsn", dsnArg, "--format", format, "-v",
						"-n", "2", "--rounds", "2", "--lock-timeout", "100ms", "--timeout", "5s", claim)
					if code != target.code {
						t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", format, code, target.code, out, errOut)
					}
					if target.code == ExitOK && !strings.Contains(strings.ToLower(out), "holds") {
						t.Errorf("%s: no holding verdict printed:\n%s", format, out)
					}
					assertNoSecret(t, format, map[string]string{"stdout": out, "stderr": errOut}, password, wrong)
				}
			})
		}
	}
}
