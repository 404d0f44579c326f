package racetest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Tables for the PostgreSQL-backed gate: one whose unique index stops
// duplicates, one whose index has a nullable namespace part.
const (
	createSoundTable = `CREATE TABLE claims_sound (
		id bigserial PRIMARY KEY,
		namespace text NOT NULL DEFAULT '',
		key text NOT NULL)`
	createSoundIndex = `CREATE UNIQUE INDEX claims_sound_ns_key ON claims_sound (namespace, key)`
	createHoleTable  = `CREATE TABLE claims_hole (
		id bigserial PRIMARY KEY,
		namespace text,
		key text NOT NULL)`
	createHoleIndex = `CREATE UNIQUE INDEX claims_hole_ns_key ON claims_hole (namespace, key)`
)

// testDB creates a throwaway database with the claim tables and returns
// its DSN; it is dropped when the test ends.
func testDB(t *testing.T) string {
	t.Helper()
	return pgtest.NewDatabase(t, createSoundTable, createSoundIndex, createHoleTable, createHoleIndex)
}

// claimHandler claims the Idempotency-Key with INSERT ... ON CONFLICT DO
// NOTHING into table; the namespace comes from the X-Namespace header and
// is NULL when the header is absent. A returned row is a win (201); none is
// a refusal (409).
type claimHandler struct {
	pool  *pgxpool.Pool
	table string
}

func (h claimHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var ns *string
	if v := r.Header.Get("X-Namespace"); v != "" {
		ns = &v
	}
	q := "INSERT INTO " + h.table + " (namespace, key) VALUES (coalesce($1, " + h.defaultNamespace() + "), $2) ON CONFLICT DO NOTHING RETURNING id"
	var id int64
	err := h.pool.QueryRow(r.Context(), q, ns, r.Header.Get(KeyHeader)).Scan(&id)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		http.Error(w, "key already claimed", http.StatusConflict)
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	default:
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":%d}`, id)
	}
}

// defaultNamespace is what a missing namespace becomes: ” where the
// column is NOT NULL, NULL where it is nullable (the hole).
func (h claimHandler) defaultNamespace() string {
	if h.table == "claims_sound" {
		return "''"
	}
	return "NULL::text"
}

func pgGate(t *testing.T, dsn, table string) string {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(claimHandler{pool: pool, table: table})
	t.Cleanup(func() { srv.Close(); pool.Close() })
	return srv.URL + "/claims"
}

func TestPostgresClaim(t *testing.T) {
	dsn := testDB(t)
	cases := []struct {
		table string
		want  Status
	}{
		{"claims_sound", Holds},
		{"claims_hole", Broken},
	}
	for _, c := range cases {
		t.Run(c.table, func(t *testing.T) {
			p := quick(pgGate(t, dsn, c.table))
			p.N = 4
			eff, err := NewSQLEffect(context.Background(), dsn, "SELECT count(*) FROM "+c.table+" WHERE key = $1")
			if err != nil {
				t.Fatal(err)
			}
			defer eff.Close(context.Background())
			p.Effect = eff
			res := run(t, p)
			if res.Verdict.Status != c.want {
				t.Fatalf("verdict %s (%s), want %s", res.Verdict.Status, res.Verdict.Sentence, c.want)
			}
			for _, r := range res.Rounds {
				if c.want == Holds && (r.Effects == nil || *r.Effects != 1) {
					t.Fatalf("round %d counted %v effects, want 1", r.Index, r.Effects)
				}
			}
			if c.want == Broken && !strings.Contains(res.Verdict.Cause, "nullable key part") {
				t.Errorf("cause %q does not mention a nullable key part", res.Verdict.Cause)
			}
		})
	}
}

// TestEffectCountOverridesClaims: a handler that answers 201 with a fresh
// request id to everyone but whose insert is stopped by a sound index
// performed the effect once. Its calibration retry gets a different
// success, so without a count no round can be judged (never broken: it
// never doubled); with the count it holds.
func TestEffectCountOverridesClaims(t *testing.T) {
	dsn := testDB(t)
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := pool.Exec(r.Context(), "INSERT INTO claims_sound (key) VALUES ($1) ON CONFLICT DO NOTHING", r.Header.Get(KeyHeader))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"request":%q}`, NewRunID())
	}))
	defer func() { srv.Close(); pool.Close() }()
	p := quick(srv.URL)
	p.Rounds = 5
	eff, err := NewSQLEffect(context.Background(), dsn, "SELECT count(*) FROM claims_sound WHERE key = $1")
	if err != nil {
		t.Fatal(err)
	}
	defer eff.Close(context.Background())
	without := run(t, p)
	p.Effect = eff
	with := run(t, p)
	if without.Verdict.Status != Inconclusive || with.Verdict.Status != Holds {
		t.Fatalf("without count %s (%s), with count %s (%s); want inconclusive then holds",
			without.Verdict.Status, without.Verdict.Sentence, with.Verdict.Status, with.Verdict.Sentence)
	}
	if without.Calibration.Signature != SigDifferent {
		t.Errorf("calibration %+v, want a different success", without.Calibration)
	}
}

func TestBadEffectSQLIsReportedBeforeTheRun(t *testing.T) {
	dsn := testDB(t)
	_, err := NewSQLEffect(context.Background(), dsn, "SELECT count(*) FROM no_such_table WHERE key = $1")
	if err == nil || !strings.Contains(err.Error(), "no_such_table") {
		t.Fatalf("err %v, want the missing relation named", err)
	}
}
