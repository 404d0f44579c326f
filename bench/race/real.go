package main

// The real-server table (issue 27, docs/race-sync.md "Real servers"):
// servers a user would run, installed as a user would (Go net/http, Django
// on runserver and on gunicorn from Debian, Express with pg from npm, a
// Rack app with ActiveRecord on WEBrick and on puma from Debian, a Flask app
// with psycopg2 on waitress from Debian, and a prefork server),
// each counting its own effect per key, raced by the idemcheck binary with
// its defaults beside the naive probe with a keep-alive client and with
// fresh connections, in one sitting per target.

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/racetest/httprace"
	"github.com/jackc/pgx/v5"
)

// realTargets are the real-server table's targets, in the order they run.
var realTargets = []string{"go", "go-tls", "django-runserver", "django-gunicorn", "express", "rack-webrick", "rack-puma", "flask-waitress", "prefork"}

// realMethods: the idemcheck binary with its defaults (the key header and
// a body, nothing else), and the naive probe, N goroutines released by a
// WaitGroup sharing one http.Client that keeps its connections alive
// across rounds, or one that opens fresh connections for every request.
var realMethods = []string{"idemcheck", "naive-keepalive", "naive-fresh"}

// realWindow is how long the Go targets spin between reading the request
// and recording the charge.
const realWindow = 50 * time.Microsecond

type realConfig struct {
	idemcheck string // the binary measured
	rounds    int
	ns        []int
	targets   []string
	methods   []string
	dsn       string
	npmCache  string // where express and pg are installed (NODE_PATH is its node_modules)
	load      int    // busy processes started beside the run
	extra     []string
	label     string // said in the header: which build the binary is of
	oracle    bool   // give idemcheck the target's count as --effect-url
}

// realCell is one target, N and method.
type realCell struct {
	target, method string
	n              int
	rounds, caught int
	noEffect       int    // rounds whose key made no charge at all (every request failed)
	sync           string // what idemcheck chose, from its JSON
	elapsed        time.Duration
	load           string // the 1-minute load average when the cell started
	err            string
}

func realTable(w io.Writer, cfg realConfig) error {
	if cfg.idemcheck == "" {
		return fmt.Errorf("-tables real needs -idemcheck PATH, the binary to measure")
	}
	bin, err := filepath.Abs(cfg.idemcheck)
	if err != nil {
		return err
	}
	cfg.idemcheck = bin
	out, _ := exec.Command(bin, "version").CombinedOutput()
	version := strings.Join(strings.Fields(strings.Join(strings.SplitN(string(out), "\n", 3)[:2], " ")), " ")
	stopLoad, err := startLoad(cfg.load)
	if err != nil {
		return err
	}
	defer stopLoad()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(w, "Real servers, counted effects: %d rounds per cell, oracle given to idemcheck: %v, %d busy processes beside it, %d CPUs, %s; idemcheck %s %s; load average at the start %s; %s\n\n",
		cfg.rounds, cfg.oracle, cfg.load, runtime.NumCPU(), runtime.Version(), version, cfg.label,
		strings.Join(strings.Fields(string(load))[:3], " "), time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintln(w, "| target | N | method | caught | 95% CI | no effect | time | load |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	var cells []*realCell
	for _, name := range cfg.targets {
		t, err := startReal(name, cfg)
		if err != nil {
			fmt.Fprintf(w, "| %s | | | n/a: %v | | | |\n", name, err)
			continue
		}
		for _, n := range cfg.ns {
			for _, m := range cfg.methods {
				c := &realCell{target: name, method: m, n: n, load: loadAverage()}
				start := time.Now()
				switch m {
				case "idemcheck":
					idemcheckCell(c, t, cfg)
				case "naive-keepalive", "naive-fresh":
					naiveRealCell(c, t, cfg.rounds, m == "naive-fresh")
				default:
					c.err = "unknown method"
				}
				c.elapsed = time.Since(start)
				cells = append(cells, c)
				fmt.Fprintln(w, c.row())
			}
		}
		t.Close()
	}
	fmt.Fprintln(w)
	return comparisons(w, cells)
}

func (c *realCell) row() string {
	if c.err != "" && c.rounds == 0 {
		return fmt.Sprintf("| %s | %d | %s | error: %s | | | %s | %s |", c.target, c.n, c.method, c.err, c.elapsed.Round(time.Second), c.load)
	}
	lo, hi := wilson(c.caught, c.rounds)
	method := c.method
	if c.sync != "" {
		method += " (" + c.sync + ")"
	}
	if c.err != "" {
		method += " [" + c.err + "]"
	}
	return fmt.Sprintf("| %s | %d | %s | %d/%d = %.1f%% | %.1f–%.1f%% | %d | %s | %s |", c.target, c.n, method, c.caught, c.rounds,
		100*float64(c.caught)/float64(max(c.rounds, 1)), 100*lo, 100*hi, c.noEffect, c.elapsed.Round(time.Second), c.load)
}

// comparisons prints the three tests per target and N: the
// defaults' upper Wilson bound at least naive keep-alive's rate; at least
// 95% where naive is at 90% or more; at least twice naive where naive is
// under 45%.
func comparisons(w io.Writer, cells []*realCell) error {
	type key struct {
		target string
		n      int
	}
	by := map[key]map[string]*realCell{}
	var order []key
	for _, c := range cells {
		k := key{c.target, c.n}
		if by[k] == nil {
			by[k] = map[string]*realCell{}
			order = append(order, k)
		}
		by[k][c.method] = c
	}
	fmt.Fprintln(w, "| target | N | idemcheck | naive keep-alive | not worse (upper bound >= naive) | >= 95% where naive >= 90% | >= 2x where naive < 45% |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, k := range order {
		d, nv := by[k]["idemcheck"], by[k]["naive-keepalive"]
		if d == nil || nv == nil || d.rounds == 0 || nv.rounds == 0 {
			continue
		}
		p := float64(d.caught) / float64(d.rounds)
		q := float64(nv.caught) / float64(nv.rounds)
		_, hi := wilson(d.caught, d.rounds)
		yes := func(b bool) string {
			if b {
				return "holds"
			}
			return "**fails**"
		}
		ninety, twice := "-", "-"
		if q >= 0.9 {
			ninety = yes(p >= 0.95)
		}
		if q < 0.45 {
			twice = yes(p >= 2*q)
			if q == 0 {
				twice += " (naive 0)"
			}
		}
		fmt.Fprintf(w, "| %s | %d | %.1f%% | %.1f%% | %s | %s | %s |\n", k.target, k.n, 100*p, 100*q, yes(hi >= q-1e-9), ninety, twice)
	}
	return nil
}

func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// startLoad starts n busy processes (yes > /dev/null) and returns what
// stops them, by their process ids.
func startLoad(n int) (func(), error) {
	var cmds []*exec.Cmd
	stop := func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}
	for range n {
		c := exec.Command("yes")
		c.Stdout = nil // /dev/null
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("load: %v", err)
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

// realTarget is a running target: URL is what the probes race (POST),
// effects the count of a key.
type realTarget struct {
	URL      string
	effects  string // with {{key}}
	insecure bool
	cmds     []*exec.Cmd
	closers  []func()
	counter  *http.Client
}

// Close stops the target's processes and then drops its database.
func (t *realTarget) Close() {
	for _, c := range t.cmds {
		c.Process.Kill()
		c.Wait()
	}
	for i := len(t.closers) - 1; i >= 0; i-- {
		t.closers[i]()
	}
}

func (t *realTarget) count(key string) (int, error) {
	resp, err := t.counter.Get(strings.ReplaceAll(t.effects, "{{key}}", url.QueryEscape(key)))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("count: %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// freePort is a loopback port nobody listens on at the moment.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// realDatabase creates a throwaway database and returns its URL and what
// drops it.
func realDatabase(dsn, name string) (string, func(), error) {
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", nil, err
	}
	defer c.Close(ctx)
	db := fmt.Sprintf("bench_real_%s_%d", strings.ReplaceAll(name, "-", "_"), os.Getpid())
	if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
		return "", nil, err
	}
	if _, err := c.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		return "", nil, err
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + db
	drop := func() {
		if c, err := pgx.Connect(ctx, dsn); err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
			c.Close(ctx)
		}
	}
	return u.String(), drop, nil
}

func targetDir(parts ...string) (string, error) {
	return filepath.Abs(filepath.Join(append([]string{"bench", "race", "targets"}, parts...)...))
}

// startReal starts the named target and waits until its count answers.
func startReal(name string, cfg realConfig) (*realTarget, error) {
	t := &realTarget{counter: &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}}
	fail := func(err error) (*realTarget, error) {
		t.Close()
		return nil, err
	}
	start := func(c *exec.Cmd) error {
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			return err
		}
		t.cmds = append(t.cmds, c)
		return nil
	}
	switch name {
	case "go", "go-tls", "prefork":
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		c := exec.Command(self, "-serve", realWindow.String(), "-serve-kind", "real-"+name)
		line, err := startAndRead(c)
		if err != nil {
			return nil, err
		}
		t.cmds = append(t.cmds, c)
		f := strings.Fields(line)
		if len(f) != 2 {
			return fail(fmt.Errorf("%s printed %q, want the URL and the count's base", name, line))
		}
		t.URL, t.effects, t.insecure = f[0]+"/claims", f[1]+"/effects?key={{key}}", name == "go-tls"
	default:
		dbURL, drop, err := realDatabase(cfg.dsn, name)
		if err != nil {
			return nil, fmt.Errorf("database: %v", err)
		}
		t.closers = append(t.closers, drop)
		port, err := freePort()
		if err != nil {
			return fail(err)
		}
		base := fmt.Sprintf("http://127.0.0.1:%d", port)
		env := append(os.Environ(), "DATABASE_URL="+dbURL)
		switch name {
		case "django-runserver", "django-gunicorn":
			dir, err := targetDir("django")
			if err != nil {
				return fail(err)
			}
			// Debian's python3-django is Debian's python3's.
			mig := exec.Command("/usr/bin/python3", "manage.py", "migrate", "--run-syncdb", "-v", "0")
			mig.Dir, mig.Env = dir, env
			if out, err := mig.CombinedOutput(); err != nil {
				return fail(fmt.Errorf("manage.py migrate: %v: %s", err, out))
			}
			var c *exec.Cmd
			if name == "django-runserver" {
				c = exec.Command("/usr/bin/python3", "manage.py", "runserver", "--noreload", fmt.Sprintf("127.0.0.1:%d", port))
			} else {
				c = exec.Command("gunicorn", "-w", "3", "-b", fmt.Sprintf("127.0.0.1:%d", port), "--log-level", "warning", "benchsite.wsgi")
			}
			c.Dir, c.Env = dir, env
			if err := start(c); err != nil {
				return fail(err)
			}
		case "express":
			dir, err := targetDir("express")
			if err != nil {
				return fail(err)
			}
			mods := filepath.Join(cfg.npmCache, "node_modules")
			if _, err := os.Stat(filepath.Join(mods, "express")); err != nil {
				return fail(fmt.Errorf("express is not installed in %s (npm install --prefix %s express pg)", mods, cfg.npmCache))
			}
			c := exec.Command("node", filepath.Join(dir, "app.js"), strconv.Itoa(port))
			c.Env = append(env, "NODE_PATH="+mods)
			if err := start(c); err != nil {
				return fail(err)
			}
		case "rack-webrick":
			dir, err := targetDir("rack")
			if err != nil {
				return fail(err)
			}
			c := exec.Command("rackup", "-s", "webrick", "-o", "127.0.0.1", "-p", strconv.Itoa(port), "-q", "config.ru")
			c.Dir, c.Env = dir, env
			if err := start(c); err != nil {
				return fail(err)
			}
		case "rack-puma":
			// The same Rack app on Debian's puma with its defaults (single
			// mode, up to 5 threads).
			dir, err := targetDir("rack")
			if err != nil {
				return fail(err)
			}
			c := exec.Command("puma", "-b", fmt.Sprintf("tcp://127.0.0.1:%d", port), "--quiet", "config.ru")
			c.Dir, c.Env = dir, env
			if err := start(c); err != nil {
				return fail(err)
			}
		case "flask-waitress":
			dir, err := targetDir("flask")
			if err != nil {
				return fail(err)
			}
			c := exec.Command("waitress-serve", "--listen", fmt.Sprintf("127.0.0.1:%d", port), "app:app")
			c.Dir, c.Env = dir, env
			if err := start(c); err != nil {
				return fail(err)
			}
		default:
			return fail(fmt.Errorf("unknown target"))
		}
		t.URL, t.effects = base+"/claims", base+"/effects?key={{key}}"
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := t.count("ready")
		if err == nil {
			return t, nil
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("not answering after 30s: %v", err))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func startAndRead(c *exec.Cmd) (string, error) {
	c.Stderr = os.Stderr
	out, err := c.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := c.Start(); err != nil {
		return "", err
	}
	var line []byte
	buf := make([]byte, 1)
	for {
		n, err := out.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return string(line), nil
			}
			line = append(line, buf[0])
		}
		if err != nil {
			c.Process.Kill()
			c.Wait()
			return "", fmt.Errorf("target process: %v", err)
		}
	}
}

// idemcheckCell runs the binary as a user would: the key header, a body,
// -n and --rounds, JSON out (and --insecure for the self-signed
// certificate, --deadline so that a slow server finishes); then the
// target's count decides each round.
func idemcheckCell(c *realCell, t *realTarget, cfg realConfig) {
	args := []string{"race", "http", "-n", strconv.Itoa(c.n), "--rounds", strconv.Itoa(cfg.rounds), "--format", "json",
		"--deadline", "30m", "-H", "Idempotency-Key: {{key}}", "-d", `{"amount":100}`}
	if t.insecure {
		args = append(args, "--insecure")
	}
	if cfg.oracle {
		args = append(args, "--effect-url", t.effects)
	}
	args = append(append(args, cfg.extra...), t.URL)
	cmd := exec.Command(cfg.idemcheck, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var res struct {
		Sync       string `json:"sync"`
		SyncReason string `json:"sync_reason"`
		Rounds     []struct {
			Key string `json:"key"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		c.err = fmt.Sprintf("%v; %v: %s", runErr, err, strings.TrimSpace(lastLine(stderr.String())))
		return
	}
	c.sync = res.Sync
	// Why auto chose it, with the pre-run's figures where it measured.
	fmt.Fprintf(os.Stderr, "sync %s N=%d: %s: %s\n", c.target, c.n, res.Sync, res.SyncReason)
	for _, r := range res.Rounds {
		if !c.tally(t, r.Key) {
			return
		}
	}
}

// tally reads the target's own count for one round's key into the cell:
// caught when the effect ran more than once. It reports false, with the
// cell's error set, when the count cannot be read.
func (c *realCell) tally(t *realTarget, key string) bool {
	n, err := t.count(key)
	if err != nil {
		c.err = err.Error()
		return false
	}
	c.rounds++
	switch {
	case n > 1:
		c.caught++
	case n == 0:
		c.noEffect++
	}
	return true
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// naiveRealCell is the hand-written test: N goroutines sharing one
// http.Client, released by a WaitGroup, the target's count read after each
// round. keep-alive: the client's connections (HTTP/2 when TLS agrees, as
// http.DefaultTransport) are reused from round to round; fresh: every
// request opens its own.
func naiveRealCell(c *realCell, t *realTarget, rounds int, fresh bool) {
	tr := &http.Transport{MaxIdleConnsPerHost: c.n, ForceAttemptHTTP2: true, DisableKeepAlives: fresh,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: t.insecure}}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	stamp := time.Now().UnixNano()
	for i := range rounds {
		key := fmt.Sprintf("%s-%d-%d-%d", c.method, c.n, stamp, i)
		naiveRound(client, t.URL, key, c.n)
		if !c.tally(t, key) {
			return
		}
	}
}

// plainGate is a Go handler as a user writes one: it reads the body, looks
// the key up in its map, spins (CPU work, no yield) for the window, then
// records the charge.
type plainGate struct {
	window time.Duration
	mu     sync.Mutex
	n      map[string]int
	// arrivals, when BENCH_ARRIVALS names a file, gets one line per
	// request: the key and the Unix time in ns at which its body was read
	// (the diagnosis of issue 27: where the two requests of a round land).
	arrivals *os.File
	amu      sync.Mutex
}

func (g *plainGate) stamp(key string) {
	if g.arrivals == nil {
		return
	}
	now := time.Now().UnixNano()
	g.amu.Lock()
	fmt.Fprintf(g.arrivals, "%s %d\n", key, now)
	g.amu.Unlock()
}

func (g *plainGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, err := io.ReadAll(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	key := r.Header.Get(httprace.KeyHeader)
	g.stamp(key)
	g.mu.Lock()
	seen := g.n[key] > 0
	g.mu.Unlock()
	if seen {
		http.Error(w, "key already used", http.StatusConflict)
		return
	}
	for start := time.Now(); time.Since(start) < g.window; {
	}
	g.mu.Lock()
	g.n[key]++
	g.mu.Unlock()
	w.WriteHeader(http.StatusCreated)
}

func (g *plainGate) serveEffects(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	fmt.Fprintf(w, "%d\n", g.n[r.URL.Query().Get("key")])
}

func (g *plainGate) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /effects", g.serveEffects)
	mux.Handle("POST /claims", g)
	return mux
}

// serveReal is the child process of the Go real targets: "go" is a default
// http.Server in cleartext (HTTP/1.1), "go-tls" the same over TLS (HTTP/2
// and HTTP/1.1 by ALPN, as Go serves by default), "prefork" one worker
// process per CPU on one port (SO_REUSEPORT: the kernel picks the worker
// of each connection), each with GOMAXPROCS 1 and its own in-memory map,
// and this process serving the sum of their counts. It prints the URL and
// the count's base.
func serveReal(kind string, window time.Duration) {
	g := &plainGate{window: window, n: map[string]int{}}
	if f := os.Getenv("BENCH_ARRIVALS"); f != "" {
		var err error
		if g.arrivals, err = os.OpenFile(f, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	switch kind {
	case "real-go":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		base := "http://" + l.Addr().String()
		fmt.Println(base, base)
		fmt.Fprintln(os.Stderr, (&http.Server{Handler: g.mux()}).Serve(l))
	case "real-go-tls":
		srv := httptest.NewUnstartedServer(g.mux())
		srv.EnableHTTP2 = true
		srv.StartTLS()
		fmt.Println(srv.URL, srv.URL)
		select {}
	case "real-prefork":
		servePrefork(window)
	case "real-prefork-worker":
		// A worker dies with its parent: its stdin is a pipe from the
		// parent, closed when the parent exits however it exits.
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
		port, _ := strconv.Atoi(os.Getenv("BENCH_PREFORK_PORT"))
		l, err := reusePortListen(port)
		if err != nil {
			fmt.Fprintln(os.Stderr, "prefork worker:", err)
			os.Exit(1)
		}
		admin, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("http://" + admin.Addr().String())
		go http.Serve(admin, g.mux())
		fmt.Fprintln(os.Stderr, (&http.Server{Handler: g.mux()}).Serve(l))
	}
	os.Exit(1)
}

// workerStdin are the prefork workers' stdin pipes, held open.
var workerStdin []io.WriteCloser

func servePrefork(window time.Duration) {
	port, err := freePort()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	self, _ := os.Executable()
	var workers []string
	for range runtime.NumCPU() {
		c := exec.Command(self, "-serve", window.String(), "-serve-kind", "real-prefork-worker")
		c.Env = append(os.Environ(), "GOMAXPROCS=1", fmt.Sprintf("BENCH_PREFORK_PORT=%d", port))
		stdin, err := c.StdinPipe()
		if err != nil {
			fmt.Fprintln(os.Stderr, "prefork:", err)
			os.Exit(1)
		}
		// Held until this process exits: were the pipe collected, its
		// finalizer would close it and the worker would exit.
		workerStdin = append(workerStdin, stdin)
		line, err := startAndRead(c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "prefork:", err)
			os.Exit(1)
		}
		workers = append(workers, line)
	}
	admin, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	sum := http.NewServeMux()
	sum.HandleFunc("GET /effects", func(w http.ResponseWriter, r *http.Request) {
		total := 0
		for _, wk := range workers {
			resp, err := client.Get(wk + "/effects?" + r.URL.RawQuery)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			n, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				http.Error(w, "worker count: "+string(b), http.StatusBadGateway)
				return
			}
			total += n
		}
		fmt.Fprintf(w, "%d\n", total)
	})
	fmt.Printf("http://127.0.0.1:%d http://%s\n", port, admin.Addr())
	fmt.Fprintln(os.Stderr, http.Serve(admin, sum))
}
