package prove

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemcheck/idemcheck/internal/pgcluster"
)

// Config says where the scratch server comes from.
type Config struct {
	// DSN is a server on which a role may create and drop a database
	// (--scratch-dsn, IDEMCHECK_SCRATCH_DSN); "" starts a throwaway
	// cluster instead.
	DSN string
	// Getenv reads PATH, where initdb and pg_ctl are looked for first.
	Getenv func(string) string
	// DebianRoot is where Debian installs the server binaries, one
	// directory per major version ("/usr/lib/postgresql"); "" skips it.
	DebianRoot string
	// Major is the target's major version: among several installed
	// servers under DebianRoot the one of that version is preferred.
	Major int
	// Timeout bounds each statement on the scratch server; zero is 30 s.
	Timeout time.Duration
}

// DefaultDebianRoot is Debian's and Ubuntu's directory of server binaries.
const DefaultDebianRoot = "/usr/lib/postgresql"

// NoServerError is --prove with nothing to prove on: no scratch DSN and no
// initdb to start a cluster with.
type NoServerError struct {
	// Looked lists where initdb and pg_ctl were looked for.
	Looked []string
}

func (e *NoServerError) Error() string {
	return "--prove needs a scratch PostgreSQL: give --scratch-dsn (or IDEMCHECK_SCRATCH_DSN) for a role that may create " +
		"and drop a database, or install PostgreSQL's server programs so that idemcheck can start a throwaway cluster " +
		"(initdb and pg_ctl on PATH, under pg_config --bindir, or in " + DefaultDebianRoot + "/<N>/bin; looked in " +
		strings.Join(e.Looked, ", ") + ")"
}

// Server is the scratch PostgreSQL of one run: one database, one
// connection, every witness.
type Server struct {
	conn *pgx.Conn
	// Version is the server's version ("15.8"); Major its major version.
	Version string
	Major   int
	// Where says which server it is, without secrets: "a throwaway
	// cluster on 127.0.0.1:41234 from /usr/lib/postgresql/15/bin" or
	// "postgres://user@host:5433/idemcheck_prove_... (--scratch-dsn)".
	Where string
	// Port is the server's port, Cluster whether idemcheck started it.
	Port    int
	Cluster bool
	// Started is how long it took to have the scratch database ready:
	// initdb and pg_ctl for a cluster, CREATE DATABASE on a DSN.
	Started time.Duration

	cluster        *pgcluster.Cluster
	dropDatabase   func(context.Context) error
	triedExtension map[string]bool
}

// Open makes the scratch database: a new database on cfg.DSN's server, or a
// throwaway cluster. The caller closes it.
func Open(ctx context.Context, cfg Config) (*Server, error) {
	start := time.Now()
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	var s *Server
	var err error
	if cfg.DSN != "" {
		s, err = openDSN(ctx, cfg)
	} else {
		s, err = openCluster(ctx, cfg)
	}
	if err != nil {
		return nil, err
	}
	s.Started = time.Since(start)
	s.triedExtension = map[string]bool{}
	if _, err := s.conn.Exec(ctx, fmt.Sprintf("SET statement_timeout = %d", cfg.Timeout.Milliseconds())); err != nil {
		s.Close(context.Background())
		return nil, fmt.Errorf("the scratch server: %s", pgMessage(err))
	}
	return s, nil
}

// scratchName names this run's scratch database.
func scratchName() string {
	return fmt.Sprintf("idemcheck_prove_%d_%d", os.Getpid(), time.Now().UnixNano()%1e12)
}

func openDSN(ctx context.Context, cfg Config) (*Server, error) {
	pc, err := pgx.ParseConfig(cfg.DSN)
	if err != nil {
		return nil, fmt.Errorf("--scratch-dsn: %v", err)
	}
	pc.ConnectTimeout = cfg.Timeout
	admin, err := pgx.ConnectConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("--scratch-dsn: cannot connect to %s: %v", describe(pc.Config, pc.Database), err)
	}
	defer admin.Close(context.Background())
	name := scratchName()
	// template0: a database with nothing in it, whatever template1 holds.
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42501" {
			return nil, fmt.Errorf("--scratch-dsn: role %s may not create a database on %s (42501): give a role with CREATEDB", pc.User, describe(pc.Config, pc.Database))
		}
		return nil, fmt.Errorf("--scratch-dsn: creating the scratch database on %s: %s", describe(pc.Config, pc.Database), pgMessage(err))
	}
	drop := func(ctx context.Context) error {
		c, err := pgx.ConnectConfig(ctx, pc)
		if err != nil {
			return fmt.Errorf("dropping the scratch database %s: %v", name, err)
		}
		defer c.Close(context.Background())
		return pgcluster.DropDatabase(ctx, c, name)
	}
	sc := pc.Copy()
	sc.Database = name
	conn, err := pgx.ConnectConfig(ctx, sc)
	if err != nil {
		_ = drop(context.Background())
		return nil, fmt.Errorf("--scratch-dsn: connecting to the scratch database %s: %v", name, err)
	}
	s := &Server{conn: conn, Port: int(pc.Port), Where: describe(pc.Config, name) + " (--scratch-dsn)", dropDatabase: drop}
	if err := s.readVersion(ctx); err != nil {
		s.Close(context.Background())
		return nil, err
	}
	return s, nil
}

// describe names a server and database without a password.
func describe(c pgconn.Config, database string) string {
	return fmt.Sprintf("postgres://%s@%s:%d/%s", c.User, c.Host, c.Port, database)
}

func (s *Server) readVersion(ctx context.Context) error {
	if err := s.conn.QueryRow(ctx, "SHOW server_version").Scan(&s.Version); err != nil {
		return fmt.Errorf("the scratch server: %s", pgMessage(err))
	}
	s.Version, _, _ = strings.Cut(s.Version, " ")
	var num string
	if err := s.conn.QueryRow(ctx, "SHOW server_version_num").Scan(&num); err != nil {
		return fmt.Errorf("the scratch server: %s", pgMessage(err))
	}
	n, _ := strconv.Atoi(num)
	s.Major = n / 10000
	return nil
}

// Close ends the connection and drops the scratch database, or stops the
// cluster and removes its directory.
func (s *Server) Close(ctx context.Context) error {
	var errs []error
	if s.conn != nil {
		if err := s.conn.Close(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if s.dropDatabase != nil {
		if err := s.dropDatabase(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if s.cluster != nil {
		if err := s.cluster.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// quoteIdent quotes an extension's name for CREATE EXTENSION.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// Available says, before anything is read, whether Open can work: a DSN is
// given, or initdb and pg_ctl are installed and, for root, there is an
// unprivileged user to run them as. The error is a *NoServerError when
// there is neither a DSN nor initdb.
func Available(cfg Config) error {
	if cfg.DSN != "" {
		if _, err := pgx.ParseConfig(cfg.DSN); err != nil {
			return fmt.Errorf("--scratch-dsn: %v", err)
		}
		return nil
	}
	if bin, looked := FindServerPrograms(cfg); bin == "" {
		return &NoServerError{Looked: looked}
	}
	_, _, err := runAs()
	return err
}

// SameDatabase reports whether dsn names the database at host:port/database
// (a loopback host matches any loopback name).
func SameDatabase(dsn, host string, port uint16, database string) (bool, error) {
	pc, err := pgx.ParseConfig(dsn)
	if err != nil {
		return false, fmt.Errorf("--scratch-dsn: %v", err)
	}
	sameHost := pc.Host == host || (loopback(pc.Host) && loopback(host))
	return sameHost && pc.Port == port && pc.Database == database, nil
}

func loopback(host string) bool {
	if host == "localhost" || strings.HasPrefix(host, "/") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
