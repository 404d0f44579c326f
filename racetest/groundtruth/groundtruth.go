// Package groundtruth has loopback HTTP targets that count their own side
// effect per idempotency key. The count is the truth the race probe is
// judged against: a verdict of "holds" on a target that counted two
// effects for one key is a defect of the probe, and so is "broken" on one
// that never did.
//
// Every target has a window of at least Window between its check and its
// write (or, for a claim made in one statement, between the claim and the
// response), so that the N requests of a round overlap in the handler
// reliably, even under the race detector on two cores.
//
// Each server answers, besides its claim route:
//
//	GET /effects?key=K   the bare count of K's effects (for --effect-url)
//	GET /doubled         how many keys it counted two or more effects for
package groundtruth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Window is the time every target spends between its check and its write.
const Window = 6 * time.Millisecond

// KeyHeader carries the key for every target in this package.
const KeyHeader = "Idempotency-Key"

// Effects is a target's own count of its side effect.
type Effects interface {
	Count(ctx context.Context, key string) (int, error)
	// Doubled is how many keys got two or more effects.
	Doubled(ctx context.Context) (int, error)
}

// Counter counts effects in memory.
type Counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *Counter) add(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[key]++
	return c.n[key]
}

// Count returns key's effects.
func (c *Counter) Count(_ context.Context, key string) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key], nil
}

// Doubled counts the keys with two or more effects.
func (c *Counter) Doubled(context.Context) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := 0
	for _, n := range c.n {
		if n > 1 {
			d++
		}
	}
	return d, nil
}

// seq numbers the effects for the targets whose bodies carry a fresh id.
type seq struct {
	mu sync.Mutex
	n  int
}

func (s *seq) next() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return s.n
}

func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}

// ReadCheckWrite looks the key up, waits Window (its SELECT-to-INSERT
// time), then records the effect: concurrent requests all find the key
// free. A key it already holds gets 409. Its success body is constant,
// `{"status":"charged"}`, unless FreshID puts a new id in every body.
type ReadCheckWrite struct {
	Counter
	FreshID bool
	ids     seq
}

func (g *ReadCheckWrite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get(KeyHeader)
	if n, _ := g.Count(r.Context(), key); n > 0 {
		reply(w, http.StatusConflict, `{"error":"key already used"}`)
		return
	}
	time.Sleep(Window)
	g.add(key)
	if g.FreshID {
		reply(w, http.StatusCreated, fmt.Sprintf(`{"id":%d}`, g.ids.next()))
		return
	}
	reply(w, http.StatusCreated, `{"status":"charged"}`)
}

// NoDedupe performs the effect for every request and always answers the
// same bytes.
type NoDedupe struct{ Counter }

func (g *NoDedupe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	time.Sleep(Window)
	g.add(r.Header.Get(KeyHeader))
	reply(w, http.StatusCreated, `{"status":"ok"}`)
}

// InFlightOnly refuses a key while a request with it is in flight (409)
// and forgets it when the request is done: concurrent duplicates are
// stopped, a later retry runs the effect again and answers the same bytes.
type InFlightOnly struct {
	Counter
	mu     sync.Mutex
	flying map[string]bool
}

func (g *InFlightOnly) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get(KeyHeader)
	g.mu.Lock()
	if g.flying == nil {
		g.flying = map[string]bool{}
	}
	busy := g.flying[key]
	g.flying[key] = true
	g.mu.Unlock()
	if busy {
		reply(w, http.StatusConflict, `{"error":"a request with this key is in flight"}`)
		return
	}
	time.Sleep(Window)
	g.add(key)
	g.mu.Lock()
	delete(g.flying, key)
	g.mu.Unlock()
	reply(w, http.StatusCreated, `{"status":"ok"}`)
}

// Replay says how a Sound gate answers a key it has already seen.
type Replay int

const (
	// Marked: 409 while the first request is in flight, then the stored
	// response with Idempotent-Replayed: true.
	Marked Replay = iota
	// SameBytes: a duplicate waits for the first request, then gets its
	// stored bytes, unmarked.
	SameBytes
	// Rerendered: a duplicate waits, then gets the stored result rendered
	// again with a fresh timestamp, unmarked.
	Rerendered
	// Accepted: 202 {"status":"processing"} while the first request is in
	// flight, then the stored response with Idempotent-Replayed: true.
	Accepted
)

// Sound claims the key atomically before its work (Window long), so the
// effect happens once per key whatever arrives at once.
type Sound struct {
	Counter
	Replay Replay
	mu     sync.Mutex
	keys   map[string]*soundEntry
	ids    seq
}

type soundEntry struct {
	done chan struct{}
	id   int
	body string
}

func (g *Sound) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get(KeyHeader)
	g.mu.Lock()
	if g.keys == nil {
		g.keys = map[string]*soundEntry{}
	}
	e, seen := g.keys[key]
	if !seen {
		e = &soundEntry{done: make(chan struct{})}
		g.keys[key] = e
	}
	g.mu.Unlock()
	if seen {
		g.replay(w, r, e)
		return
	}
	time.Sleep(Window)
	g.add(key)
	e.id = g.ids.next()
	e.body = g.render(e.id)
	close(e.done)
	reply(w, http.StatusCreated, e.body)
}

func (g *Sound) render(id int) string {
	if g.Replay == Rerendered {
		return fmt.Sprintf(`{"id":%d,"rendered_at":%q}`, id, time.Now().Format(time.RFC3339Nano))
	}
	return fmt.Sprintf(`{"id":%d}`, id)
}

func (g *Sound) replay(w http.ResponseWriter, r *http.Request, e *soundEntry) {
	if g.Replay == Marked || g.Replay == Accepted {
		select {
		case <-e.done:
			w.Header().Set("Idempotent-Replayed", "true")
			reply(w, http.StatusCreated, e.body)
		default:
			if g.Replay == Accepted {
				reply(w, http.StatusAccepted, `{"status":"processing"}`)
				return
			}
			reply(w, http.StatusConflict, `{"error":"a request with this key is in flight"}`)
		}
		return
	}
	select {
	case <-e.done:
	case <-r.Context().Done():
		return
	}
	if g.Replay == Rerendered {
		reply(w, http.StatusCreated, g.render(e.id))
		return
	}
	reply(w, http.StatusCreated, e.body)
}

// Tables for the PostgreSQL targets. charges has no unique index at all;
// claims_nullable's unique key has a nullable part that the claim leaves
// NULL; claims_nnd is the same with NULLS NOT DISTINCT (PostgreSQL 15).
const (
	CreateCharges        = `CREATE TABLE charges (id bigserial PRIMARY KEY, idempotency_key text NOT NULL, amount int NOT NULL)`
	CreateClaimsNullable = `CREATE TABLE claims_nullable (id bigserial PRIMARY KEY, namespace text, idempotency_key text NOT NULL, UNIQUE (namespace, idempotency_key))`
	CreateClaimsNND      = `CREATE TABLE claims_nnd (id bigserial PRIMARY KEY, namespace text, idempotency_key text NOT NULL, UNIQUE NULLS NOT DISTINCT (namespace, idempotency_key))`
)

// pgCount counts a table's rows per key: the effect is the row.
type pgCount struct {
	pool  *pgxpool.Pool
	table string
}

func (c pgCount) Count(ctx context.Context, key string) (int, error) {
	var n int
	err := c.pool.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{c.table}.Sanitize()+" WHERE idempotency_key = $1", key).Scan(&n)
	return n, err
}

func (c pgCount) Doubled(ctx context.Context) (int, error) {
	var n int
	err := c.pool.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM "+pgx.Identifier{c.table}.Sanitize()+
		" GROUP BY idempotency_key HAVING count(*) > 1) d").Scan(&n)
	return n, err
}

// ReadThenInsert selects the key in charges and, when absent, inserts it
// Window later: with no unique index both concurrent requests insert. A
// key already in the table gets 409. Its success body is constant.
type ReadThenInsert struct{ pgCount }

// NewReadThenInsert serves charges (CreateCharges) through pool.
func NewReadThenInsert(pool *pgxpool.Pool) *ReadThenInsert {
	return &ReadThenInsert{pgCount{pool: pool, table: "charges"}}
}

func (g *ReadThenInsert) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, key := r.Context(), r.Header.Get(KeyHeader)
	n, err := g.Count(ctx, key)
	if err != nil {
		reply(w, http.StatusInternalServerError, fmt.Sprintf(`{"error":%q}`, err.Error()))
		return
	}
	if n > 0 {
		reply(w, http.StatusConflict, `{"error":"key already used"}`)
		return
	}
	time.Sleep(Window)
	if _, err := g.pool.Exec(ctx, "INSERT INTO charges (idempotency_key, amount) VALUES ($1, 100)", key); err != nil {
		reply(w, http.StatusInternalServerError, fmt.Sprintf(`{"error":%q}`, err.Error()))
		return
	}
	reply(w, http.StatusCreated, `{"status":"charged"}`)
}

// OnConflictClaim claims with INSERT ... ON CONFLICT DO NOTHING RETURNING
// on a unique key whose namespace part it leaves NULL, then works Window
// before answering: a returned row is 201 (a constant body), none is 409.
// On claims_nullable the NULL lets every claim through; on claims_nnd
// (NULLS NOT DISTINCT) the gate holds.
type OnConflictClaim struct{ pgCount }

// NewOnConflictClaim serves table (claims_nullable or claims_nnd).
func NewOnConflictClaim(pool *pgxpool.Pool, table string) *OnConflictClaim {
	return &OnConflictClaim{pgCount{pool: pool, table: table}}
}

func (g *OnConflictClaim) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, key := r.Context(), r.Header.Get(KeyHeader)
	var id int64
	err := g.pool.QueryRow(ctx, "INSERT INTO "+pgx.Identifier{g.table}.Sanitize()+
		" (namespace, idempotency_key) VALUES (NULL, $1) ON CONFLICT DO NOTHING RETURNING id", key).Scan(&id)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		reply(w, http.StatusConflict, `{"error":"key already claimed"}`)
		return
	case err != nil:
		reply(w, http.StatusInternalServerError, fmt.Sprintf(`{"error":%q}`, err.Error()))
		return
	}
	time.Sleep(Window)
	reply(w, http.StatusCreated, `{"status":"claimed"}`)
}

// Server serves one target on a loopback port, over HTTP/1.1 and
// cleartext HTTP/2 (prior knowledge).
type Server struct {
	// URL is the claim route; EffectsURL the count for --effect-url.
	URL        string
	EffectsURL string
	Effects    Effects
	srv        *http.Server
	wg         sync.WaitGroup
}

// Start serves h, whose own count is eff.
func Start(h http.Handler, eff Effects) (*Server, error) {
	return StartOn("127.0.0.1:0", h, eff)
}

// StartOn is Start on the address given (host:port; port 0 picks a free
// one), for a target that the docs' examples reach at a fixed URL.
func StartOn(addr string, h http.Handler, eff Effects) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /effects", func(w http.ResponseWriter, r *http.Request) {
		n, err := eff.Count(r.Context(), r.URL.Query().Get("key"))
		writeCount(w, n, err)
	})
	mux.HandleFunc("GET /doubled", func(w http.ResponseWriter, r *http.Request) {
		n, err := eff.Doubled(r.Context())
		writeCount(w, n, err)
	})
	mux.Handle("/", h)
	// HTTP/1.1 and cleartext HTTP/2 with prior knowledge, which is what
	// --sync h2 speaks to an http:// URL.
	protos := new(http.Protocols)
	protos.SetHTTP1(true)
	protos.SetUnencryptedHTTP2(true)
	s := &Server{URL: base + "/charges", EffectsURL: base + "/effects?key={{key}}", Effects: eff,
		srv: &http.Server{Handler: mux, Protocols: protos, ReadHeaderTimeout: 10 * time.Second}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

func writeCount(w http.ResponseWriter, n int, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fmt.Fprintln(w, strconv.Itoa(n))
}

// Close stops the server, waits for its handlers and the serving
// goroutine.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
	s.wg.Wait()
}

// Tables of the two gates whose claim is a unique key in PostgreSQL and
// whose effect is a row of its own: each target has its own tables, so
// that its own count is its truth.
const (
	CreateEffectFirst = `CREATE TABLE effect_first_charges (id bigserial PRIMARY KEY, idempotency_key text NOT NULL, amount int NOT NULL);
CREATE TABLE effect_first_claims (idempotency_key text PRIMARY KEY)`
	CreateOneTransaction = `CREATE TABLE one_tx_charges (id bigserial PRIMARY KEY, idempotency_key text NOT NULL, amount int NOT NULL);
CREATE TABLE one_tx_claims (idempotency_key text PRIMARY KEY)`
)

// EffectFirst charges first and claims after: it inserts the charge,
// works Window, then inserts the key into a table whose primary key it is,
// answering 409 on the unique violation. Every request charges, so the
// gate is broken even for a retry in sequence, and its refusal comes after
// the work: only the count, or the time the refusal took, shows it.
type EffectFirst struct{ pgCount }

// NewEffectFirst serves effect_first_charges and effect_first_claims
// (CreateEffectFirst) through pool.
func NewEffectFirst(pool *pgxpool.Pool) *EffectFirst {
	return &EffectFirst{pgCount{pool: pool, table: "effect_first_charges"}}
}

func (g *EffectFirst) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, key := r.Context(), r.Header.Get(KeyHeader)
	if _, err := g.pool.Exec(ctx, "INSERT INTO effect_first_charges (idempotency_key, amount) VALUES ($1, 100)", key); err != nil {
		reply(w, http.StatusInternalServerError, fmt.Sprintf(`{"error":%q}`, err.Error()))
		return
	}
	time.Sleep(Window)
	_, err := g.pool.Exec(ctx, "INSERT INTO effect_first_claims (idempotency_key) VALUES ($1)", key)
	replyClaim(w, err)
}

// OneTransaction claims and charges in one transaction: it inserts the
// key into a table whose primary key it is, charges, works Window and
// commits. A racing duplicate's insert waits on the winner's uncommitted
// key, then fails with a unique violation once the winner commits (409):
// the gate is sound, and its losers take as long as its winners. A retry
// of a finished key is refused at once.
type OneTransaction struct{ pgCount }

// NewOneTransaction serves one_tx_charges and one_tx_claims
// (CreateOneTransaction) through pool.
func NewOneTransaction(pool *pgxpool.Pool) *OneTransaction {
	return &OneTransaction{pgCount{pool: pool, table: "one_tx_charges"}}
}

func (g *OneTransaction) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, key := r.Context(), r.Header.Get(KeyHeader)
	err := pgx.BeginFunc(ctx, g.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO one_tx_claims (idempotency_key) VALUES ($1)", key); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "INSERT INTO one_tx_charges (idempotency_key, amount) VALUES ($1, 100)", key); err != nil {
			return err
		}
		time.Sleep(Window)
		return nil
	})
	replyClaim(w, err)
}

// replyClaim answers for a claim that ended with err: 409 on a unique
// violation, 500 on any other error, 201 when it went through.
func replyClaim(w http.ResponseWriter, err error) {
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "23505":
		reply(w, http.StatusConflict, `{"error":"key already used"}`)
	case err != nil:
		reply(w, http.StatusInternalServerError, fmt.Sprintf(`{"error":%q}`, err.Error()))
	default:
		reply(w, http.StatusCreated, `{"status":"charged"}`)
	}
}

// Counting counts the requests that reach Handler: a test that must send
// nothing checks it stayed at zero.
type Counting struct {
	Handler http.Handler
	n       atomic.Int32
}

func (c *Counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n.Add(1)
	c.Handler.ServeHTTP(w, r)
}

// Requests is how many requests reached the handler.
func (c *Counting) Requests() int { return int(c.n.Load()) }
