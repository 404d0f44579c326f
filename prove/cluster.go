package prove

import (
	"context"
	"fmt"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/internal/pgcluster"
)

// FindServerPrograms returns the directory holding initdb and pg_ctl:
// from PATH, else pg_config --bindir, else Debian's per-version
// directories (the target's major version first, then the newest). It
// also lists where it looked.
func FindServerPrograms(cfg Config) (string, []string) {
	return pgcluster.FindServerPrograms(cfg.Getenv, cfg.DebianRoot, cfg.Major)
}

// runAs returns the credential the cluster's programs run with (an
// unprivileged user's when idemcheck runs as root), and what to do when
// there is none.
func runAs() (*syscall.Credential, string, error) {
	cred, who, err := pgcluster.RunAs()
	if err != nil {
		if rest, ok := strings.CutPrefix(err.Error(), "this runs as root, "); ok {
			return nil, "", fmt.Errorf("--prove: idemcheck runs as root, %s: give --scratch-dsn, or run idemcheck as another user", rest)
		}
		return nil, "", fmt.Errorf("--prove: %w", err)
	}
	return cred, who, nil
}

// openCluster starts a throwaway cluster and connects to it.
func openCluster(ctx context.Context, cfg Config) (*Server, error) {
	bin, looked := FindServerPrograms(cfg)
	if bin == "" {
		return nil, &NoServerError{Looked: looked}
	}
	cred, who, err := runAs()
	if err != nil {
		return nil, err
	}
	c, err := pgcluster.Start(ctx, bin, cred, cfg.Getenv)
	if err != nil {
		if who != "" {
			err = fmt.Errorf("%w (running as %s, since initdb refuses root)", err, who)
		}
		return nil, fmt.Errorf("--prove: %w", err)
	}
	pc, err := pgx.ParseConfig(fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres sslmode=disable", c.Port))
	if err != nil {
		c.Stop()
		return nil, err
	}
	pc.ConnectTimeout = cfg.Timeout
	conn, err := pgx.ConnectConfig(ctx, pc)
	if err != nil {
		c.Stop()
		return nil, fmt.Errorf("--prove: connecting to the throwaway cluster on 127.0.0.1:%d: %v", c.Port, err)
	}
	where := fmt.Sprintf("a throwaway cluster on 127.0.0.1:%d from %s", c.Port, bin)
	if who != "" {
		where += ", run as " + who
	}
	s := &Server{conn: conn, cluster: c, Port: c.Port, Cluster: true, Where: where}
	if err := s.readVersion(ctx); err != nil {
		s.Close(context.Background())
		return nil, err
	}
	return s, nil
}
