//go:build !cgo

package idemsql

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// uniqueKeys has nothing to read with in a build without cgo: quoting the
// audit parses the claim with pg_query, a C library. The race runs all the
// same; a broken claim's failure says why no index is named.
func uniqueKeys(context.Context, *pgx.Conn, string) (keysFunc, string) {
	return nil, "no unique index is named: this test binary was built without cgo (CGO_ENABLED=0), " +
		"and quoting the audit parses the claim with pg_query, which needs cgo and a C compiler"
}
