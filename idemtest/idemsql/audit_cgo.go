//go:build cgo

package idemsql

import (
	"context"
	"time"

	"github.com/idemcheck/idemcheck/inspect"
	"github.com/idemcheck/idemcheck/internal/claimaudit"
	"github.com/jackc/pgx/v5"
)

// catalogTimeout bounds the catalog read on the coordinator's session.
const catalogTimeout = 10 * time.Second

// uniqueKeys reads the catalog once, before the race, on the session that
// will coordinate it, and returns the diagnosis's reader of unique
// indexes with the audit's words (the code `idemcheck race sql` runs). A
// failed read is not the race's failure: the diagnosis then says why it
// could not name an index.
func uniqueKeys(ctx context.Context, conn *pgx.Conn, stmt string) (keysFunc, string) {
	snap, err := readCatalog(ctx, conn)
	read := func(context.Context, inspect.Filter) (*inspect.Snapshot, error) { return snap, err }
	return claimaudit.UniqueKeys(read, stmt), ""
}

func readCatalog(ctx context.Context, conn *pgx.Conn) (*inspect.Snapshot, error) {
	sess, err := inspect.Attach(ctx, conn, catalogTimeout)
	if err != nil {
		return nil, err
	}
	defer sess.Close(ctx)
	return sess.ReadCatalog(ctx, inspect.Filter{})
}
