// Package idemsql races a claim statement inside PostgreSQL from a go test:
// the database half of the two-thread test of package idemtest, without a
// server in between.
//
//	func TestChargeClaim(t *testing.T) {
//		idemsql.Claim(t, pool, `INSERT INTO charge_claims (account_id, kind, address)
//			VALUES (1, 'charge', {{key}}) ON CONFLICT DO NOTHING RETURNING id`)
//	}
//
// N sessions (two by default) run the claim at the same moment, each in its
// own transaction, behind a barrier inside PostgreSQL: a coordinator holds
// an advisory lock that every claim's transaction waits on, and lets go
// when all N wait. A returned row is a win; the gate holds when exactly one
// claim won in every round. Every transaction rolls back, so the race
// leaves the tables as it found them.
//
// When two claims win, their rows are read back before they roll back, and
// the failure names the unique index that should have refused and why it
// did not, quoting the idemcheck audit: on-conflict-hole for the
// statement, nullable-key for the index, as `idemcheck race sql` prints
// them. For the charge_claims table above, with UNIQUE (account_id, kind,
// address, namespace) and namespace nullable:
//
//	idemtest: gate broken in 30 of 30 rounds (round 1: 2 claims returned a row): the claim is a read-then-write, or its unique constraint is missing or has a nullable key part
//	  diagnosis: public.charge_claims.charge_claims_account_id_kind_address_namespace_key (account_id, kind, address, namespace) should have refused: namespace was NULL in the statement's values, ... on-conflict-hole: ... nullable-key: ...
//
// The database is a DSN, a *pgxpool.Pool or a *sql.DB opened with pgx's
// driver; the race takes N+1 of its sessions at once, and a pool too small
// for them fails the test with the reason rather than wait. Quoting the
// audit parses the claim with pg_query, a C library: it needs cgo. Built
// with CGO_ENABLED=0 this package races all the same, and a broken claim's
// failure says that no index is named, and why. Package idemtest, for HTTP
// races, needs neither pgx nor cgo.
//
// The options are idemtest's: N, Rounds, Window and SkipInconclusive apply
// here.
package idemsql
