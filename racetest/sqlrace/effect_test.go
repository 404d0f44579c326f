package sqlrace

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/httprace"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// httpProbe is the demo probe against url with a short settle, so that the
// HTTP races with a PostgreSQL oracle stay quick.
func httpProbe(url string) httprace.Probe {
	p := httprace.DemoProbe(url)
	p.Settle = 20 * time.Millisecond
	p.Timeout = 5 * time.Second
	return p
}

func runHTTP(t *testing.T, p httprace.Probe) *racetest.Result {
	t.Helper()
	res, err := httprace.Run(context.Background(), p)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

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
	err := h.pool.QueryRow(r.Context(), q, ns, r.Header.Get(httprace.KeyHeader)).Scan(&id)
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
		want  racetest.Status
	}{
		{"claims_sound", racetest.Holds},
		{"claims_hole", racetest.Broken},
	}
	for _, c := range cases {
		t.Run(c.table, func(t *testing.T) {
			p := httpProbe(pgGate(t, dsn, c.table))
			p.N = 4
			eff, err := NewEffect(context.Background(), dsn, "SELECT count(*) FROM "+c.table+" WHERE key = $1", nil, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer eff.Close(context.Background())
			p.Effect = eff
			res := runHTTP(t, p)
			if res.Verdict.Status != c.want {
				t.Fatalf("verdict %s (%s), want %s", res.Verdict.Status, res.Verdict.Sentence, c.want)
			}
			for _, r := range res.Rounds {
				if c.want == racetest.Holds && (r.Effects == nil || *r.Effects != 1) {
					t.Fatalf("round %d counted %v effects, want 1", r.Index, r.Effects)
				}
			}
			if c.want == racetest.Broken && !strings.Contains(res.Verdict.Cause, "nullable key part") {
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
		_, err := pool.Exec(r.Context(), "INSERT INTO claims_sound (key) VALUES ($1) ON CONFLICT DO NOTHING", r.Header.Get(httprace.KeyHeader))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"request":%q}`, racetest.NewRunID())
	}))
	defer func() { srv.Close(); pool.Close() }()
	p := httpProbe(srv.URL)
	p.Rounds = 5
	eff, err := NewEffect(context.Background(), dsn, "SELECT count(*) FROM claims_sound WHERE key = $1", nil, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer eff.Close(context.Background())
	without := runHTTP(t, p)
	p.Effect = eff
	with := runHTTP(t, p)
	if without.Verdict.Status != racetest.Inconclusive || with.Verdict.Status != racetest.Holds {
		t.Fatalf("without count %s (%s), with count %s (%s); want inconclusive then holds",
			without.Verdict.Status, without.Verdict.Sentence, with.Verdict.Status, with.Verdict.Sentence)
	}
	if without.Calibration.Signature != racetest.SigDifferent {
		t.Errorf("calibration %+v, want a different success", without.Calibration)
	}
}

func TestBadEffectSQLIsReportedBeforeTheRun(t *testing.T) {
	dsn := testDB(t)
	_, err := NewEffect(context.Background(), dsn, "SELECT count(*) FROM no_such_table WHERE key = $1", nil, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "no_such_table") {
		t.Fatalf("err %v, want the missing relation named", err)
	}
}
