package cmd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// secretRole is the one role pg_hba.conf makes give a password (see
// scripts/pg-auth.sh, which CI runs); every other local role is trusted, so
// only for this role can a wrong password fail.
const secretRole = "idemcheck_secret"

// newSecret returns a password that cannot appear in output by chance.
func newSecret(t *testing.T) string {
	t.Helper()
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "Sekr3t-" + hex.EncodeToString(b)
}

// pgServer is where the test server listens, from IDEMCHECK_TEST_DSN.
type pgServer struct{ host, port string }

func testServer(t *testing.T) pgServer {
	t.Helper()
	cc, err := pgx.ParseConfig(pgtest.DSN())
	if err != nil {
		t.Fatal(err)
	}
	return pgServer{host: cc.Host, port: fmt.Sprint(cc.Port)}
}

// setupSecretRole gives idemcheck_secret the password and proves that the
// server checks it: a wrong password must be refused, or nothing this test
// asserts about failures would mean anything.
func setupSecretRole(t *testing.T, password string) {
	t.Helper()
	admin := pgtest.Connect(t)
	ctx := context.Background()
	_, err := admin.Exec(ctx, fmt.Sprintf(`DO $$ BEGIN
  CREATE ROLE %s LOGIN;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$`, secretRole))
	if err != nil {
		t.Fatal(err)
	}
	// The role has a password and can log in: it must not outlive the
	// test. Cleanups run last-registered first, so this runs after the
	// test's databases (created after this call), and the grants in them,
	// are gone.
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+secretRole); err != nil {
			t.Errorf("drop role %s: %v", secretRole, err)
		}
	})
	if _, err := admin.Exec(ctx, fmt.Sprintf("ALTER ROLE %s LOGIN PASSWORD '%s'", secretRole, password)); err != nil {
		t.Fatal(err)
	}
	srv := testServer(t)
	probe := fmt.Sprintf("postgres://%s:%s@%s/postgres?sslmode=disable", secretRole, "wrong-"+password, net.JoinHostPort(srv.host, srv.port))
	conn, err := pgx.Connect(ctx, probe)
	if err == nil {
		conn.Close(ctx)
		msg := "the server accepted a wrong password for " + secretRole + ": pg_hba.conf trusts it; run scripts/pg-auth.sh"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true, so this is a failure, not a skip)")
		}
		t.Skip(msg)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "28P01" {
		t.Fatalf("a wrong password failed, but not as invalid_password (28P01): %v", err)
	}
}

// closedPort returns a port on 127.0.0.1 that nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return port
}

// secretWay is one way of handing inspect the password.
type secretWay struct {
	name string
	// prepare returns the --dsn value and sets the environment.
	prepare func(t *testing.T, host, port, db, password string) (dsn string, env map[string]string)
}

var secretWays = []secretWay{
	{"URL", func(t *testing.T, host, port, db, pw string) (string, map[string]string) {
		u := url.URL{Scheme: "postgres", User: url.UserPassword(secretRole, pw), Host: net.JoinHostPort(host, port), Path: "/" + db, RawQuery: "sslmode=disable"}
		return u.String(), nil
	}},
	{"key=value", func(t *testing.T, host, port, db, pw string) (string, map[string]string) {
		return fmt.Sprintf("host=%s port=%s user=%s password=%s dbname=%s sslmode=disable", host, port, secretRole, pw, db), nil
	}},
	{"PGPASSWORD", func(t *testing.T, host, port, db, pw string) (string, map[string]string) {
		t.Setenv("PGPASSWORD", pw) // pgx reads the process environment itself
		return fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable", host, port, secretRole, db), map[string]string{"PGPASSWORD": pw}
	}},
	{".pgpass", func(t *testing.T, host, port, db, pw string) (string, map[string]string) {
		file := filepath.Join(t.TempDir(), "pgpass")
		if err := os.WriteFile(file, []byte(fmt.Sprintf("%s:%s:%s:%s:%s\n", host, port, db, secretRole, pw)), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PGPASSFILE", file)
		t.Setenv("PGPASSWORD", "")
		return fmt.Sprintf("host=%s port=%s user=%s dbname=%s sslmode=disable", host, port, secretRole, db), map[string]string{"PGPASSFILE": file}
	}},
}

// TestInspectSecrets runs inspect with the password in the URL, in
// key=value settings, in PGPASSWORD and in a .pgpass file, against success,
// a wrong password and an unreachable host, in every format with -v, --data
// and --fix-sql, and finds the password in no byte of stdout, stderr or the
// fix file.
func TestInspectSecrets(t *testing.T) {
	password := newSecret(t)
	setupSecretRole(t, password)
	dsn := pgtest.NewDatabase(t, inspectHoleSchema,
		"GRANT SELECT ON ALL TABLES IN SCHEMA public TO "+secretRole)
	db := databaseName(t, dsn)
	srv := testServer(t)
	wrong := newSecret(t)
	targets := []struct {
		name           string
		port, password string
		code           int
	}{
		{"success", srv.port, password, ExitFindings},
		{"wrong password", srv.port, wrong, ExitUsage},
		{"unreachable host", closedPort(t), password, ExitUsage},
	}
	for _, way := range secretWays {
		for _, target := range targets {
			t.Run(way.name+"/"+target.name, func(t *testing.T) {
				dsnArg, env := way.prepare(t, srv.host, target.port, db, target.password)
				for _, format := range []string{"text", "json", "sarif"} {
					fix := filepath.Join(t.TempDir(), "fix.sql")
					code, out, errOut := runInspectCmd(t, env, "inspect", "--dsn", dsnArg, "--format", format,
						"-v", "--data", "--fix-sql", fix, "--timeout", "5s")
					if code != target.code {
						t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", format, code, target.code, out, errOut)
					}
					fixed, err := os.ReadFile(fix)
					if target.code == ExitFindings && (err != nil || !strings.Contains(string(fixed), "events")) {
						t.Errorf("%s: the fix file was not written (%v)", format, err)
					}
					if target.code == ExitUsage && !strings.Contains(errOut, "user="+secretRole) {
						t.Errorf("%s: the error does not say which connection failed: %q", format, errOut)
					}
					assertNoSecret(t, format, map[string]string{"stdout": out, "stderr": errOut, "fix file": string(fixed)},
						password, wrong)
				}
			})
		}
	}
}

// assertNoSecret fails when any secret, or its random half, appears in any
// of the outputs.
func assertNoSecret(t *testing.T, format string, outputs map[string]string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		random := strings.TrimPrefix(s, "Sekr3t-")
		for name, text := range outputs {
			if strings.Contains(text, s) || strings.Contains(text, random) || strings.Contains(text, url.QueryEscape(s)) {
				t.Errorf("%s: the password is in %s:\n%s", format, name, text)
			}
		}
	}
}
