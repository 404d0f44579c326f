package idemtest_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/idemtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// chargeReadThenWrite is the bug: it looks the key up, calls the payment
// provider (5 ms here), and only then records the key. Two requests with
// one key both find it free, and the customer is charged twice. Its table,
// charges_unguarded, has no unique index on the key.
func chargeReadThenWrite(db *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		var used bool
		err := db.QueryRow(r.Context(), `SELECT EXISTS (SELECT 1 FROM charges_unguarded WHERE idempotency_key = $1)`, key).Scan(&used)
		switch {
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		case used:
			http.Error(w, "this key was used", http.StatusConflict)
			return
		}
		time.Sleep(5 * time.Millisecond) // the payment provider
		if _, err := db.Exec(r.Context(), `INSERT INTO charges_unguarded (idempotency_key, amount) VALUES ($1, 100)`, key); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}
}

// chargeOnConflict is the fix: the claim comes first and is one statement
// on a unique index (charges.idempotency_key is UNIQUE and NOT NULL), so of
// two requests with one key exactly one gets its row back and charges.
func chargeOnConflict(db *pgxpool.Pool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		var id int64
		err := db.QueryRow(r.Context(), `INSERT INTO charges (idempotency_key, amount) VALUES ($1, 100)
			ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`, key).Scan(&id)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			http.Error(w, "this key was used", http.StatusConflict)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		time.Sleep(5 * time.Millisecond) // the payment provider
		w.WriteHeader(http.StatusCreated)
	}
}

// countRows is the effect counter: a charge is a row with the key.
func countRows(db *pgxpool.Pool, table string) func(ctx context.Context, key string) (int, error) {
	return func(ctx context.Context, key string) (int, error) {
		var n int
		err := db.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE idempotency_key = $1`, key).Scan(&n)
		return n, err
	}
}

// This example races a read-then-write charge handler and its fix. In your
// own tests each race goes in a Test function, with the test's t;
// docs/idemtest.md has the whole file, and the tables.
func Example_readThenWriteAndItsFix() {
	var t *testing.T // your Test function's t
	db, err := pgxpool.New(context.Background(), os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	charge := func() *http.Request {
		return httptest.NewRequest("POST", "/charges", strings.NewReader(`{"amount":100}`))
	}

	// Fails the test, every time:
	//   idemtest: gate broken in 30 of 30 rounds (round 1: 2 requests performed the effect;
	//   effect count 2): the claim is a read-then-write, or its unique constraint is missing
	//   or has a nullable key part
	idemtest.Handler(t, chargeReadThenWrite(db), charge(),
		idemtest.CountEffects(countRows(db, "charges_unguarded")))

	// Passes: exactly one win in each of 30 rounds.
	idemtest.Handler(t, chargeOnConflict(db), charge(),
		idemtest.CountEffects(countRows(db, "charges")))
}
