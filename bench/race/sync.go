package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/nginxtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/httprace"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// syncConfig is what the sync table measures: every target at every
// window, for every N, with every method.
type syncConfig struct {
	rounds  int
	settle  time.Duration
	ns      []int
	windows []time.Duration
	targets []string
	methods []string
	dsn     string
}

// The methods of the sync table: --sync auto as the CLI runs it, each
// HTTP/1.1 release with --split headers (h1-headers is the CLI's --sync h1,
// which releases by spinning: h1-spin), the HTTP/2 single packet, and the
// naive probe.
var allMethods = []string{"auto", "h1-spin", "h1-parked", "h1-thread", "h2", "naive"}

// h2Variants are the HTTP/2 single packet laid out otherwise
// (httprace.H2Layout), for -methods: why a Go server starts the streams of
// one packet apart, and what brings them closer (docs/race-sync.md). h2 is
// the probe's layout: every HEADERS frame before the settle, every DATA
// frame withheld.
var h2Variants = map[string]struct {
	split  string
	layout httprace.H2Layout
}{
	"h2-withheld":         {httprace.SplitHeaders, httprace.H2Layout{Withheld: true}},                     // every frame withheld, each stream's HEADERS then its DATA
	"h2-lastbyte":         {httprace.SplitLastByte, httprace.H2Layout{}},                                  // HEADERS and the body but its last byte early
	"h2-withheld-grouped": {httprace.SplitHeaders, httprace.H2Layout{Withheld: true, HeadersFirst: true}}, // every frame withheld: every HEADERS, then every DATA
	"h2-withheld-reverse": {httprace.SplitHeaders, httprace.H2Layout{Withheld: true, Reverse: true}},      // every frame withheld: every HEADERS, then every DATA in descending stream order
	"h2-nobody":           {httprace.SplitHeaders, httprace.H2Layout{NoBody: true}},                       // no body: END_STREAM on HEADERS
	"h2-reverse":          {httprace.SplitHeaders, httprace.H2Layout{Reverse: true}},                      // HEADERS early, the DATA in descending stream order
}

// The targets: Go net/http gates in a child process (the window spun or
// slept), a PostgreSQL read-then-insert (the window slept between the
// SELECT and the INSERT), and a Node.js gate (the window yielded to its
// event loop), each over HTTP/1.1 and cleartext HTTP/2; and Debian's nginx
// over TLS in front of the spin gate served over HTTP/1.1.
var allTargets = []string{"spin", "sleep", "pg", "node", "nginx"}

// spin-tls and sleep-tls (not in the default list) are the spin and sleep
// gates served by Go over TLS, HTTP/2 and HTTP/1.1 by ALPN, with a
// self-signed certificate: the only way --sync auto meets Go's HTTP/2
// server (its table's Go row).

// cell is one measured combination.
type cell struct {
	target, method string
	window         time.Duration
	n              int
	rounds, caught int
	allIn          int // rounds whose every arrival fell inside the window
	arrivals       []time.Duration
	releases       []time.Duration
	note           string
}

func syncTable(w io.Writer, cfg syncConfig) error {
	fmt.Fprintf(w, "Catch rates by counted effects: %d rounds per cell, settle %s, GOMAXPROCS %d, %d CPUs, %s, %s\n\n",
		cfg.rounds, cfg.settle, runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.Version(), time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintln(w, "| target | window | N | method | caught | 95% CI | arrival spread p50 (server) | all N inside the window | release spread p50 (client) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	if contains(cfg.targets, "pg") {
		if err := pgSetup(cfg.dsn); err != nil {
			return fmt.Errorf("PostgreSQL target: %v", err)
		}
		defer pgTeardown(cfg.dsn)
	}
	for _, target := range cfg.targets {
		for _, window := range cfg.windows {
			srv, err := startTarget(target, window, cfg.dsn)
			if errors.Is(err, nginxtest.ErrNotInstalled) {
				fmt.Fprintf(w, "| %s | %s | | | n/a: %v | | | | |\n", target, window, err)
				continue
			}
			if err != nil {
				return fmt.Errorf("%s target: %v", target, err)
			}
			for _, n := range cfg.ns {
				for _, method := range cfg.methods {
					c := measureCell(srv, target, method, window, n, cfg)
					fmt.Fprintln(w, c.row())
				}
			}
			srv.Close()
		}
	}
	return nil
}

func (c *cell) row() string {
	if c.note != "" && c.rounds == 0 {
		return fmt.Sprintf("| %s | %s | %d | %s | %s | | | | |", c.target, c.window, c.n, c.method, c.note)
	}
	lo, hi := wilson(c.caught, c.rounds)
	allIn := "-"
	if len(c.arrivals) > 0 {
		allIn = fmt.Sprintf("%.0f%%", 100*float64(c.allIn)/float64(c.rounds))
	}
	method := c.method
	if c.note != "" {
		method += " (" + c.note + ")"
	}
	return fmt.Sprintf("| %s | %s | %d | %s | %d/%d = %.1f%% | %.1f–%.1f%% | %s | %s | %s |", c.target, c.window, c.n, method,
		c.caught, c.rounds, 100*float64(c.caught)/float64(c.rounds), 100*lo, 100*hi, median(c.arrivals), allIn, median(c.releases))
}

// wilson is the 95% Wilson score interval of k successes in n trials.
func wilson(k, n int) (float64, float64) {
	if n == 0 {
		return 0, 0
	}
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, mid-half), math.Min(1, mid+half)
}

func measureCell(srv *target, name, method string, window time.Duration, n int, cfg syncConfig) *cell {
	c := &cell{target: name, method: method, window: window, n: n}
	if method == "naive" {
		naiveCell(c, srv, cfg.rounds)
		return c
	}
	p := httprace.DemoProbe(srv.URL)
	p.N, p.Rounds, p.Settle, p.Split = n, cfg.rounds, cfg.settle, httprace.SplitHeaders
	p.Insecure = srv.insecure
	p.NoCalibrate = true
	// "+1cpu" runs any method with the probe on one CPU; auto is the CLI's
	// defaults, which do that for these loopback targets.
	if base, ok := strings.CutSuffix(method, "+1cpu"); ok {
		method, p.OneCPU = base, true
	}
	variant, isVariant := h2Variants[method]
	switch {
	case method == "auto":
		p.Sync, p.OneCPU = httprace.SyncAuto, true
	case method == "h2" || isVariant:
		if srv.h2URL == "" {
			c.note = "n/a: no HTTP/2"
			return c
		}
		p.URL, p.Sync = racetest.Template(srv.h2URL), httprace.SyncH2
		if isVariant {
			p.Split, p.H2 = variant.split, variant.layout
		}
	case method == "h1-headers": // the CLI's --sync h1 --split headers, before --release auto
		p.Sync, p.Release = httprace.SyncH1, httprace.ReleaseSpin
	case method == "h1-warm": // warm connections, the head withheld, the wake release
		p.Sync, p.Release, p.Warm = httprace.SyncH1, httprace.ReleaseWake, true
	case method == "h1-none": // warm connections, the whole request at the release, no settle
		p.Sync, p.Release, p.Warm, p.Split = httprace.SyncH1, httprace.ReleaseWake, true, httprace.SplitNone
	default:
		p.Sync, p.Release = httprace.SyncH1, strings.TrimPrefix(method, "h1-")
	}
	eff, err := httprace.NewURLEffect(srv.EffectsURL, srv.insecure, 5*time.Second)
	if err != nil {
		c.note = "error: " + err.Error()
		return c
	}
	defer eff.Close()
	p.Effect = eff
	res, err := httprace.Run(context.Background(), p)
	if err != nil {
		c.note = "error: " + err.Error()
		return c
	}
	if method == "auto" {
		c.note = res.Sync
	}
	for _, r := range res.Rounds {
		if r.Effects == nil {
			continue
		}
		c.rounds++
		if *r.Effects > 1 {
			c.caught++
		}
		c.releases = append(c.releases, r.ReleaseSpread)
		if r.ArrivalSpread != nil {
			c.arrivals = append(c.arrivals, *r.ArrivalSpread)
			if *r.ArrivalSpread <= window {
				c.allIn++
			}
		}
	}
	return c
}

// naiveCell is the hand-written test: N goroutines sharing one
// http.Client, released by a WaitGroup; the target's count decides.
func naiveCell(c *cell, srv *target, rounds int) {
	// As http.DefaultTransport does: HTTP/2 when TLS agrees to it.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c.n, ForceAttemptHTTP2: true,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: srv.insecure}}}
	defer client.CloseIdleConnections()
	for i := range rounds {
		key := fmt.Sprintf("naive-%s-%dus-%d-%d-%d", c.target, c.window.Microseconds(), c.n, time.Now().UnixNano(), i)
		_, arr := naiveRound(client, srv.URL, key, c.n)
		n, err := srv.effects(client, key)
		if err != nil {
			c.note = "error: " + err.Error()
			return
		}
		c.rounds++
		if n > 1 {
			c.caught++
		}
		if len(arr) == c.n {
			sort.Float64s(arr)
			s := time.Duration((arr[c.n-1] - arr[0]) * float64(time.Millisecond))
			c.arrivals = append(c.arrivals, s)
			if s <= c.window {
				c.allIn++
			}
		}
	}
}

// target is a benchmark target in a child process: URL for HTTP/1.1 and
// the naive probe, h2URL for HTTP/2 ("" when it has none), insecure when
// they are TLS with a self-signed certificate.
type target struct {
	URL, h2URL, EffectsURL string
	insecure               bool
	cmd                    *exec.Cmd
	closers                []func()
}

func (t *target) Close() {
	for i := len(t.closers) - 1; i >= 0; i-- {
		t.closers[i]()
	}
	t.cmd.Process.Kill()
	t.cmd.Wait()
}

func (t *target) effects(client *http.Client, key string) (int, error) {
	resp, err := client.Get(strings.ReplaceAll(t.EffectsURL, "{{key}}", url.QueryEscape(key)))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: %s", t.EffectsURL, resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// startTarget starts the named target with the window in a child process
// and reads the base URL it prints. node serves HTTP/1.1 and cleartext
// HTTP/2 on two ports; nginx is Debian's nginx (HTTP/2 and HTTP/1.1 over
// TLS) in front of the spin gate served over HTTP/1.1.
func startTarget(name string, window time.Duration, dsn string) (*target, error) {
	var cmd *exec.Cmd
	switch name {
	case "node":
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, fmt.Errorf("node is not installed")
		}
		script, err := filepath.Abs(filepath.Join("testdata", "race", "node_bench.js"))
		if err != nil {
			return nil, err
		}
		cmd = exec.Command(node, script, strconv.FormatInt(window.Microseconds(), 10), "both")
	default:
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		kind := name
		if name == "nginx" {
			kind = "spin" // nginx's upstream, which it reaches over HTTP/1.1
		}
		cmd = exec.Command(self, "-serve", window.String(), "-serve-kind", kind, "-dsn", dsn)
	}
	cmd.Stderr = os.Stderr
	if v := os.Getenv("BENCH_TARGET_GOGC"); v != "" {
		// The targets' garbage collector, apart from the probe's
		// (docs/race-sync.md: what the misses at 1 ms are).
		cmd.Env = append(os.Environ(), "GOGC="+v)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("target process: %v", err)
	}
	base := strings.TrimSpace(line)
	t := &target{cmd: cmd}
	switch name {
	case "node":
		ports := strings.Fields(base)
		if len(ports) != 2 {
			t.Close()
			return nil, fmt.Errorf("node printed %q, want two ports", base)
		}
		base = "http://127.0.0.1:" + ports[0]
		t.h2URL = "http://127.0.0.1:" + ports[1] + "/claims"
	case "nginx":
		dir, err := os.MkdirTemp("", "bench-race-nginx-")
		if err != nil {
			t.Close()
			return nil, err
		}
		t.closers = append(t.closers, func() { os.RemoveAll(dir) })
		ng, err := nginxtest.Start(dir, strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Close()
			return nil, err
		}
		t.closers = append(t.closers, ng.Close)
		t.URL, t.h2URL, t.insecure = ng.URL+"/claims", ng.URL+"/claims", true
		t.EffectsURL = base + "/effects?key={{key}}" // the count, straight from the upstream
		return t, nil
	default:
		t.h2URL = base + "/claims"
		t.insecure = strings.HasPrefix(base, "https:")
	}
	t.URL, t.EffectsURL = base+"/claims", base+"/effects?key={{key}}"
	return t, nil
}

// serveMuxTLS serves mux as Go does over TLS by default (HTTP/2 and
// HTTP/1.1 by ALPN), with httptest's self-signed certificate, and prints
// its base URL.
func serveMuxTLS(mux http.Handler) {
	srv := httptest.NewUnstartedServer(mux)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	fmt.Println(srv.URL)
	select {}
}

// serveTarget is the child process of a Go target: a Gate (spin or sleep)
// or the PostgreSQL read-then-insert, stamped with its arrival, over
// HTTP/1.1 and cleartext HTTP/2; it prints its base URL.
func serveTarget(kind string, window time.Duration, dsn string) {
	mux := http.NewServeMux()
	switch kind {
	case "pg":
		h, err := newPGTarget(dsn, window)
		if err != nil {
			fmt.Fprintln(os.Stderr, "pg target:", err)
			os.Exit(1)
		}
		mux.HandleFunc("GET /effects", h.serveEffects)
		mux.Handle("/", httprace.StampArrival(h))
	default:
		g := &httprace.Gate{Window: window, Sleep: strings.HasPrefix(kind, "sleep")}
		mux.HandleFunc("GET /effects", g.ServeEffects)
		mux.Handle("/", g)
	}
	if strings.HasSuffix(kind, "-tls") {
		serveMuxTLS(mux)
		return
	}
	serveMux(mux)
}

// pgTable is the read-then-insert's table; the parent creates and drops it.
const pgTable = "bench_race_charges"

func pgSetup(dsn string) error {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "DROP TABLE IF EXISTS "+pgTable+"; CREATE TABLE "+pgTable+" (id bigserial PRIMARY KEY, idempotency_key text NOT NULL)")
	return err
}

func pgTeardown(dsn string) {
	ctx := context.Background()
	if c, err := pgx.Connect(ctx, dsn); err == nil {
		_, _ = c.Exec(ctx, "DROP TABLE IF EXISTS "+pgTable)
		c.Close(ctx)
	}
}

// pgTarget selects the key and, when it is absent, sleeps the window and
// inserts it: a read-then-insert with no unique index.
type pgTarget struct {
	pool   *pgxpool.Pool
	window time.Duration
}

func newPGTarget(dsn string, window time.Duration) (*pgTarget, error) {
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(context.Background()); err != nil {
		return nil, err
	}
	return &pgTarget{pool: pool, window: window}, nil
}

func (g *pgTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, key := r.Context(), r.Header.Get(httprace.KeyHeader)
	var n int
	if err := g.pool.QueryRow(ctx, "SELECT count(*) FROM "+pgTable+" WHERE idempotency_key = $1", key).Scan(&n); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if n > 0 {
		http.Error(w, "key already used", http.StatusConflict)
		return
	}
	if g.window > 0 {
		time.Sleep(g.window)
	}
	if _, err := g.pool.Exec(ctx, "INSERT INTO "+pgTable+" (idempotency_key) VALUES ($1)", key); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

func (g *pgTarget) serveEffects(w http.ResponseWriter, r *http.Request) {
	var n int
	if err := g.pool.QueryRow(r.Context(), "SELECT count(*) FROM "+pgTable+" WHERE idempotency_key = $1", r.URL.Query().Get("key")).Scan(&n); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	fmt.Fprintln(w, n)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseList splits a comma-separated flag.
func parseList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
