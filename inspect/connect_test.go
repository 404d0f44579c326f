package inspect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
)

// Every failed connection must name where and as whom, give the reason, and
// never show the password, whichever way the password was given.
func TestConnectErrorsHideThePassword(t *testing.T) {
	adminConn(t).Close(context.Background()) // skip without a server
	// The tests' server, which need not be on 5432 (a throwaway cluster).
	cc, err := pgx.ParseConfig(pgtest.DSN())
	if err != nil {
		t.Fatal(err)
	}
	host, port := cc.Host, strconv.Itoa(int(cc.Port))
	const secret = "Tr0ub4dor-and-3"
	pgpass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pgpass, []byte("*:*:*:*:"+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		dsn    string
		env    map[string]string
		want   []string // all must appear in the error
		reason string
	}{
		{
			name:   "URL, missing database",
			dsn:    "postgres://postgres:" + secret + "@" + host + ":" + port + "/idemcheck_no_such_db?sslmode=disable",
			want:   []string{"host=" + host, "port=" + port, "user=postgres", "database=idemcheck_no_such_db"},
			reason: "does not exist",
		},
		{
			name:   "key=value, missing role",
			dsn:    "host=" + host + " port=" + port + " user=idemcheck_no_such_role dbname=postgres sslmode=disable password='" + secret + "'",
			want:   []string{"host=" + host, "user=idemcheck_no_such_role", "database=postgres"},
			reason: "does not exist",
		},
		{
			name:   "PGPASSWORD, unreachable port",
			dsn:    "host=127.0.0.1 port=1 user=postgres dbname=postgres sslmode=disable",
			env:    map[string]string{"PGPASSWORD": secret},
			want:   []string{"host=127.0.0.1", "port=1", "user=postgres"},
			reason: "connection refused",
		},
		{
			name:   "pgpass, missing role",
			dsn:    "host=" + host + " port=" + port + " user=idemcheck_no_such_role dbname=postgres sslmode=disable",
			env:    map[string]string{"PGPASSFILE": pgpass},
			want:   []string{"user=idemcheck_no_such_role"},
			reason: "does not exist",
		},
		{
			name:   "PG variables only, missing database",
			env:    map[string]string{"PGHOST": host, "PGPORT": port, "PGUSER": "postgres", "PGDATABASE": "idemcheck_nope", "PGPASSWORD": secret, "PGSSLMODE": "disable"},
			want:   []string{"port=" + port, "database=idemcheck_nope"},
			reason: "does not exist",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			_, err := Open(context.Background(), Config{DSN: c.dsn, Timeout: 5 * time.Second, Getenv: os.Getenv})
			if err == nil {
				t.Fatal("connected")
			}
			var ce *ConnectError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v, want a ConnectError", err, err)
			}
			msg := err.Error()
			if strings.Contains(msg, secret) {
				t.Fatalf("the password leaked: %s", msg)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("not one line: %q", msg)
			}
			for _, w := range append(c.want, c.reason) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
		})
	}
}

func TestBadConnectionStringHidesThePassword(t *testing.T) {
	const secret = "Zebra-Paddle-99"
	for _, dsn := range []string{
		"postgres://postgres:" + secret + "@127.0.0.1:notaport/db",
		"host=127.0.0.1 password='" + secret + " port=5432",
		"postgres://postgres:" + secret + "@[::1/db",
	} {
		_, err := Open(context.Background(), Config{DSN: dsn, Timeout: time.Second, Getenv: func(string) string { return "" }})
		if err == nil {
			t.Errorf("%q was accepted", dsn)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the password leaked: %v", err)
		}
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("error %T %v, want a ConfigError", err, err)
		}
		t.Logf("%s", err)
	}
}

// DATABASE_URL is used when --dsn is empty, and --dsn wins over it.
func TestDSNPrecedence(t *testing.T) {
	env := func(k string) string {
		if k == "DATABASE_URL" {
			return "postgres://from-env/db"
		}
		return ""
	}
	if got := (Config{Getenv: env}).connString(); got != "postgres://from-env/db" {
		t.Errorf("without --dsn: %q", got)
	}
	if got := (Config{DSN: "host=flag", Getenv: env}).connString(); got != "host=flag" {
		t.Errorf("with --dsn: %q", got)
	}
}
