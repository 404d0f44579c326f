package idemsql_test

import (
	"context"
	"os"
	"testing"

	"github.com/idemcheck/idemcheck/idemtest"
	"github.com/idemcheck/idemcheck/idemtest/idemsql"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A claim on UNIQUE (account_id, kind, address, namespace) that leaves
// namespace NULL wins twice in every round, and the failure names the
// index and quotes the audit.
func ExampleClaim() {
	var t *testing.T // your Test function's t
	pool, err := pgxpool.New(context.Background(), os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	idemsql.Claim(t, pool, `INSERT INTO charge_claims (account_id, kind, address)
		VALUES (1, 'charge', {{key}}) ON CONFLICT DO NOTHING RETURNING id`,
		idemtest.N(4), idemtest.Rounds(50))
}
