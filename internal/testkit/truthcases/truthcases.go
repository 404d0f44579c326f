// Package truthcases is the race-evidence ground-truth suite as a table:
// targets that count their own side effect per key (racetest/groundtruth,
// and two third-party idempotency middlewares run as processes), each with
// the verdict the probe must reach without an effect oracle and with one.
// Two front ends run the same table: the CLI (cmd/race_truth_test.go) and
// the Go test library (idemtest/groundtruth_test.go).
//
// It is test support: it imports testing, and a third-party target that
// cannot start skips its case, except under CI=true, where that fails.
package truthcases

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/internal/testkit/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/groundtruth"
	"github.com/jackc/pgx/v5/pgxpool"
)

// setup are the tables the PostgreSQL targets need.
var setup = []string{groundtruth.CreateCharges, groundtruth.CreateClaimsNullable, groundtruth.CreateClaimsNND,
	groundtruth.CreateEffectFirst, groundtruth.CreateOneTransaction}

// Pool is a connection pool on a throwaway database holding the tables the
// PostgreSQL targets need, closed and dropped when the test ends.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.NewDatabase(t, setup...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// Target is one running target.
type Target struct {
	// Handler is the target itself when it runs in this process (nil for
	// a process); URL serves it either way.
	Handler http.Handler
	URL     string
	// KeyHeader carries the key; KeyValue is its template for the CLI's
	// -H ({{key}}, or {{uuid}} where the target insists on a UUID).
	KeyHeader string
	KeyValue  string
	// EffectsURL is the count of a key for --effect-url, with KeyValue's
	// template in it.
	EffectsURL string
	// Count is the target's own count of a key's effects.
	Count func(ctx context.Context, key string) (int, error)
	// Doubled is how many keys the target counted two or more effects for.
	Doubled func() int
}

// Case is one target and the verdicts the probe must reach.
type Case struct {
	Name  string
	Start func(t testing.TB) Target
	// Without and With are the verdicts without an effect oracle and with
	// the target's own count as one.
	Without, With racetest.Status
	// Marker, when set, is the replay marker the user declares for this
	// target ('Name: value', --replay-header, idemtest.ReplayHeader).
	Marker string
	// Quiet is set for a sound target whose verdict without an oracle
	// rests on the effect-before-claim rule, that is on how long its
	// refusal takes against its win (docs/race.md, "What responses cannot
	// show"): a suite runs it alone rather than beside the others, and
	// gives an inconclusive run by that rule one more try.
	Quiet bool
}

// WorkMS is the work of a charge in the Django, ActiveRecord and express
// targets (GATE_WORK_MS): 20 ms, about what a payment provider's API takes
// on a good day. At 6 ms the Django target's own cost per request (a
// database connection for each, 10-15 ms here) outweighs its work, and by
// its responses its sound gate cannot be told from one that charges
// first (docs/race.md has both measurements).
const WorkMS = "20"

// Cases are the targets, for a suite whose test is t (the Fiber target is
// built once into its temporary directory) and whose PostgreSQL tables
// (Setup) pool reaches.
func Cases(t testing.TB, pool *pgxpool.Pool) []Case {
	mem := func(h func() (http.Handler, groundtruth.Effects)) func(t testing.TB) Target {
		return func(t testing.TB) Target { return startInProcess(t, h) }
	}
	procs := &processes{dir: t.TempDir(), suite: t}
	return []Case{
		{Name: "read-check-write, constant body", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.ReadCheckWrite{}
			return g, g
		}), Without: racetest.Broken, With: racetest.Broken},
		{Name: "read-check-write, fresh id", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.ReadCheckWrite{FreshID: true}
			return g, g
		}), Without: racetest.Broken, With: racetest.Broken},
		{Name: "PostgreSQL read-then-insert, no unique index", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := groundtruth.NewReadThenInsert(pool)
			return g, g
		}), Without: racetest.Broken, With: racetest.Broken},
		{Name: "sound gate, 409 in flight, marked replays", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.Sound{Replay: groundtruth.Marked}
			return g, g
		}), Without: racetest.Holds, With: racetest.Holds},
		{Name: "sound gate, waits, same bytes unmarked", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.Sound{Replay: groundtruth.SameBytes}
			return g, g
		}), Without: racetest.Inconclusive, With: racetest.Holds},
		{Name: "sound gate, waits, re-rendered replay", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.Sound{Replay: groundtruth.Rerendered}
			return g, g
		}), Without: racetest.Inconclusive, With: racetest.Holds},
		{Name: "in-flight lock only, a later retry runs again", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.InFlightOnly{}
			return g, g
		}), Without: racetest.Inconclusive, With: racetest.Broken},
		{Name: "no dedupe", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.NoDedupe{}
			return g, g
		}), Without: racetest.Inconclusive, With: racetest.Broken},
		{Name: "ON CONFLICT DO NOTHING, nullable key part", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := groundtruth.NewOnConflictClaim(pool, "claims_nullable")
			return g, g
		}), Without: racetest.Inconclusive, With: racetest.Broken},
		{Name: "ON CONFLICT DO NOTHING, NULLS NOT DISTINCT", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := groundtruth.NewOnConflictClaim(pool, "claims_nnd")
			return g, g
		}), Without: racetest.Holds, With: racetest.Holds, Quiet: true},
		{Name: "express-idempotency on Redis (npm)", Start: procs.expressIdempotency, Without: racetest.Inconclusive, With: racetest.Broken},
		{Name: "Fiber idempotency middleware (Go)", Start: procs.fiberIdempotency, Without: racetest.Inconclusive, With: racetest.Holds},
		// Issue 26's targets: what responses cannot show.
		{Name: "PostgreSQL effect before its claim (Go, pgx)", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := groundtruth.NewEffectFirst(pool)
			return g, g
		}), Without: racetest.Inconclusive, With: racetest.Broken},
		{Name: "PostgreSQL claim and charge in one transaction (Go, pgx)", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := groundtruth.NewOneTransaction(pool)
			return g, g
		}), Without: racetest.Holds, With: racetest.Holds, Quiet: true},
		{Name: "Django: effect before its claim (Debian)", Start: procs.django("effect-first"), Without: racetest.Inconclusive, With: racetest.Broken},
		{Name: "Django: claim and charge in one transaction.atomic() (Debian)", Start: procs.django("one-tx"), Without: racetest.Holds, With: racetest.Holds, Quiet: true},
		{Name: "Django: 202 while in flight (Debian)", Start: procs.django("in-flight"), Without: racetest.Holds, With: racetest.Holds},
		{Name: "ActiveRecord: effect before its claim (Debian)", Start: procs.activeRecord("effect-first"), Without: racetest.Inconclusive, With: racetest.Broken},
		{Name: "ActiveRecord: claim and charge in one transaction (Debian)", Start: procs.activeRecord("one-tx"), Without: racetest.Holds, With: racetest.Holds, Quiet: true},
		{Name: "express: effect before its claim (npm)", Start: procs.nodeGate("effect-first"), Without: racetest.Inconclusive, With: racetest.Broken},
		{Name: "express: 202 while in flight (npm)", Start: procs.nodeGate("in-flight"), Without: racetest.Holds, With: racetest.Holds},
		{Name: "express: prefork (cluster), replay marker not declared (npm)", Start: procs.nodeGate("prefork"), Without: racetest.Inconclusive, With: racetest.Broken},
		{Name: "express: prefork (cluster), replay marker declared (npm)", Start: procs.nodeGate("prefork"), Without: racetest.Broken, With: racetest.Broken,
			Marker: "Idempotent-Replayed: true"},
		{Name: "sound gate, marked replays, replay marker declared", Start: mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.Sound{Replay: groundtruth.Marked}
			return g, g
		}), Without: racetest.Holds, With: racetest.Holds, Marker: "Idempotent-Replayed: true"},
	}
}

// startInProcess serves an in-process target for the test.
func startInProcess(t testing.TB, h func() (http.Handler, groundtruth.Effects)) Target {
	t.Helper()
	handler, eff := h()
	srv, err := groundtruth.Start(handler, eff)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return Target{Handler: handler, URL: srv.URL, KeyHeader: groundtruth.KeyHeader, KeyValue: "{{key}}",
		EffectsURL: srv.EffectsURL, Count: eff.Count,
		Doubled: func() int {
			n, err := eff.Doubled(context.Background())
			if err != nil {
				t.Fatalf("the target's own count: %v", err)
			}
			return n
		}}
}

// Missing fails under CI=true and skips otherwise: third-party targets
// never pass by skipping in CI.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI needs it: .ci/run installs it)", args...)
	}
	t.Skipf(format, args...)
}

// processes starts the third-party targets; what they need is prepared
// once per suite.
type processes struct {
	dir       string     // the suite's temporary directory
	suite     testing.TB // the suite's test: what it starts ends with it
	redisOnce sync.Once
	redisURL  string
	redisErr  error
	npmOnce   sync.Once
	npmDir    string
	fiberOnce sync.Once
	fiberBin  string
	fiberErr  error
}

// testdata is the repository's testdata/race directory, found upwards from
// the test's working directory.
func testdata(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "race")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// expressIdempotency runs testdata/race/node/express-idempotency-redis.js:
// express-idempotency with its Redis adapter, on a Redis server the suite
// starts for itself.
func (p *processes) expressIdempotency(t testing.TB) Target {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "node is not installed")
	}
	redisURL := p.redis(t)
	modules := p.npm(t)
	return startProcess(t, filepath.Join(testdata(t), "node"), []string{"REDIS_URL=" + redisURL, "NODE_PATH=" + modules},
		"Idempotency-Key", "{{key}}", "", node, "express-idempotency-redis.js")
}

// redis starts a Redis server of the suite's own on a free loopback port,
// keeping nothing on disk, once per suite, and returns its URL: no test
// talks to a Redis it did not start.
func (p *processes) redis(t testing.TB) string {
	t.Helper()
	p.redisOnce.Do(func() {
		bin, err := exec.LookPath("redis-server")
		if err != nil {
			p.redisErr = fmt.Errorf("redis-server is not installed (Debian: redis-server)")
			return
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			p.redisErr = err
			return
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--dir", p.dir, "--daemonize", "no", "--loglevel", "warning")
		log := &lockedWriter{}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			p.redisErr = err
			return
		}
		p.suite.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		for i := 0; i < 100; i++ {
			if redisPing(addr) {
				p.redisURL = "redis://" + addr
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		p.redisErr = fmt.Errorf("redis-server on %s did not answer PING in 5 s: %s", addr, log.String())
	})
	if p.redisErr != nil {
		Missing(t, "no Redis for the suite: %v", p.redisErr)
	}
	return p.redisURL
}

// redisPing says whether a Redis server answers PING at addr.
func redisPing(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// npm installs the npm packages of testdata/race/node (npm ci: the
// committed lock file's versions) into a cache outside the clone, one
// folder per lock file, and returns its node_modules for NODE_PATH. The
// clone is never written to.
func (p *processes) npm(t testing.TB) string {
	t.Helper()
	src := filepath.Join(testdata(t), "node")
	p.npmOnce.Do(func() {
		lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
		if err != nil {
			return
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		sum := sha256.Sum256(lock)
		dir := filepath.Join(cache, "idemcheck-tests", "npm-"+hex.EncodeToString(sum[:8]))
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "express-idempotency-redis-adapter")); err == nil {
			p.npmDir = filepath.Join(dir, "node_modules")
			return
		}
		// Install into a fresh folder and rename it into place, so that a
		// half-finished install is never taken for a whole one.
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			t.Logf("npm cache: %v", err)
			return
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dir), "installing-")
		if err != nil {
			t.Logf("npm cache: %v", err)
			return
		}
		defer os.RemoveAll(tmp)
		for _, f := range []string{"package.json", "package-lock.json"} {
			data, err := os.ReadFile(filepath.Join(src, f))
			if err == nil {
				err = os.WriteFile(filepath.Join(tmp, f), data, 0o644)
			}
			if err != nil {
				t.Logf("npm cache: %v", err)
				return
			}
		}
		t.Logf("installing the npm packages of %s into %s (npm ci)", src, dir)
		if out, err := exec.Command("npm", "ci", "--silent", "--no-audit", "--no-fund", "--prefix", tmp).CombinedOutput(); err != nil {
			t.Logf("npm ci: %v\n%s", err, out)
			return
		}
		if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
			if _, statErr := os.Stat(filepath.Join(dir, "node_modules")); statErr != nil {
				t.Logf("npm cache: %v", err)
				return
			}
		}
		p.npmDir = filepath.Join(dir, "node_modules")
	})
	if p.npmDir == "" {
		Missing(t, "the npm packages of %s could not be installed (npm ci; see the log above)", src)
	}
	return p.npmDir
}

// fiberIdempotency builds and runs testdata/race/fiber, its own module:
// Fiber's idempotency middleware with its defaults, whose key header is
// X-Idempotency-Key and must be a 36-character UUID.
func (p *processes) fiberIdempotency(t testing.TB) Target {
	t.Helper()
	p.fiberOnce.Do(func() {
		p.fiberBin = filepath.Join(p.dir, "fiber")
		cmd := exec.Command("go", "build", "-o", p.fiberBin, ".")
		cmd.Dir = filepath.Join(testdata(t), "fiber")
		if out, err := cmd.CombinedOutput(); err != nil {
			p.fiberErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if p.fiberErr != nil {
		Missing(t, "building the Fiber target (its module is downloaded by .ci/run): %v", p.fiberErr)
	}
	return startProcess(t, "", nil, "X-Idempotency-Key", "{{uuid}}", "", p.fiberBin)
}

// django runs view of testdata/race/django/gate.py under Debian's python3
// (/usr/bin/python3, which sees python3-django and python3-psycopg2) on a
// database of its own.
func (p *processes) django(view string) func(t testing.TB) Target {
	return func(t testing.TB) Target {
		t.Helper()
		python := "/usr/bin/python3"
		if err := exec.Command(python, "-c", "import django, psycopg2").Run(); err != nil {
			Missing(t, "Debian's python3-django and python3-psycopg2 are not installed (%v)", err)
		}
		return startProcess(t, "", workEnv(), "Idempotency-Key", "{{key}}", "/"+view, python, filepath.Join(testdata(t), "django", "gate.py"), pgtest.NewDatabase(t))
	}
}

// activeRecord runs route of testdata/race/activerecord/gate.rb under
// Debian's ruby (ruby-activerecord, ruby-pg, ruby-webrick) on a database of
// its own.
func (p *processes) activeRecord(route string) func(t testing.TB) Target {
	return func(t testing.TB) Target {
		t.Helper()
		ruby := "/usr/bin/ruby"
		if err := exec.Command(ruby, "-e", `require "active_record"; require "pg"; require "webrick"`).Run(); err != nil {
			Missing(t, "Debian's ruby-activerecord, ruby-pg and ruby-webrick are not installed (%v)", err)
		}
		return startProcess(t, "", workEnv(), "Idempotency-Key", "{{key}}", "/"+route, ruby, filepath.Join(testdata(t), "activerecord", "gate.rb"), pgtest.NewDatabase(t))
	}
}

// nodeGate runs testdata/race/node/gates.js in mode (express, from the
// npm packages of testdata/race/node), counting its effects in a file of
// its own.
func (p *processes) nodeGate(mode string) func(t testing.TB) Target {
	return func(t testing.TB) Target {
		t.Helper()
		node, err := exec.LookPath("node")
		if err != nil {
			Missing(t, "node is not installed")
		}
		modules := p.npm(t)
		return startProcess(t, filepath.Join(testdata(t), "node"), append(workEnv(), "NODE_PATH="+modules),
			"Idempotency-Key", "{{key}}", "", node, "gates.js", mode, filepath.Join(t.TempDir(), "effects"))
	}
}

// workEnv sets the framework targets' work: WorkMS, unless GATE_WORK_MS
// is set already (the refusal benchmark varies it).
func workEnv() []string {
	if os.Getenv("GATE_WORK_MS") != "" {
		return nil
	}
	return []string{"GATE_WORK_MS=" + WorkMS}
}

// startProcess runs argv in dir, reads the port it prints and returns a
// target on it, its routes under prefix; the process is killed when the
// test ends.
func startProcess(t testing.TB, dir string, env []string, keyHeader, keyValue, prefix string, argv ...string) Target {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedWriter{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	port, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("%s did not print its port: %v; stderr: %s", argv[0], err, stderr.String())
	}
	base := "http://127.0.0.1:" + strings.TrimSpace(port) + prefix
	return Target{URL: base + "/charges", KeyHeader: keyHeader, KeyValue: keyValue,
		EffectsURL: base + "/effects?key=" + keyValue,
		Count: func(ctx context.Context, key string) (int, error) {
			return getCount(ctx, base+"/effects?key="+key)
		},
		Doubled: func() int {
			n, err := getCount(context.Background(), base+"/doubled")
			if err != nil {
				t.Fatalf("the target's own count: %v", err)
			}
			return n
		}}
}

type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// getCount reads a bare count from url.
func getCount(ctx context.Context, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("GET %s answered %q", url, b)
	}
	return n, nil
}
