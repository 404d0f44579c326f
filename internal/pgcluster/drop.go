package pgcluster

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// DropDatabase drops a throwaway database (a test's, or --prove's scratch
// database) and any session still in it. WITH (FORCE) needs PostgreSQL 13;
// on 12 the sessions are terminated first. name must be a plain
// identifier the caller made.
func DropDatabase(ctx context.Context, c *pgx.Conn, name string) error {
	if serverVersionNum(ctx, c) >= 130000 {
		_, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return err
	}
	if _, err := c.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name); err != nil {
		return err
	}
	_, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name)
	return err
}

// serverVersionNum is the server's version number (150004 for 15.4): as
// reported at start-up, else asked.
func serverVersionNum(ctx context.Context, c *pgx.Conn) int {
	n, _ := strconv.Atoi(c.PgConn().ParameterStatus("server_version_num"))
	if n == 0 {
		var s string
		if c.QueryRow(ctx, "SHOW server_version_num").Scan(&s) == nil {
			n, _ = strconv.Atoi(s)
		}
	}
	return n
}
