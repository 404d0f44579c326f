package cmd

import (
	"bufio"
	"context"
	"encoding/json"
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

	"github.com/idemcheck/idemcheck/internal/pgtest"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/groundtruth"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The ground-truth suite: targets that count their own side effect per key
// (the count is the truth), probed through the CLI without an oracle and
// with --effect-url on the target's own count. For each the verdict and
// exit status are fixed, and over 100 rounds the probe must never say
// "holds" when the target counted two effects for one key (the
// calibration's included), nor "broken" when it never did.

// truthTarget is one running target: its claim URL, the count for
// --effect-url, and the header that carries the key.
type truthTarget struct {
	url, effectsURL string
	keyHeader       string
	doubled         func() int
}

type truthCase struct {
	name    string
	start   func(t *testing.T) truthTarget
	without racetest.Status
	with    racetest.Status
}

func TestRaceGroundTruth(t *testing.T) {
	dsn := pgtest.NewDatabase(t, groundtruth.CreateCharges, groundtruth.CreateClaimsNullable, groundtruth.CreateClaimsNND)
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	fiberDir = t.TempDir()
	mem := func(h func() (http.Handler, groundtruth.Effects)) func(t *testing.T) truthTarget {
		return func(t *testing.T) truthTarget { return startGoTarget(t, h) }
	}
	cases := []truthCase{
		{"read-check-write, constant body", mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.ReadCheckWrite{}
			return g, g
		}), racetest.Broken, racetest.Broken},
		{"read-check-write, fresh id", mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.ReadCheckWrite{FreshID: true}
			return g, g
		}), racetest.Broken, racetest.Broken},
		{"PostgreSQL read-then-insert, no unique index", mem(func() (http.Handler, groundtruth.Effects) {
			g := groundtruth.NewReadThenInsert(pool)
			return g, g
		}), racetest.Broken, racetest.Broken},
		{"sound gate, 409 in flight, marked replays", mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.Sound{Replay: groundtruth.Marked}
			return g, g
		}), racetest.Holds, racetest.Holds},
		{"sound gate, waits, same bytes unmarked", mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.Sound{Replay: groundtruth.SameBytes}
			return g, g
		}), racetest.Inconclusive, racetest.Holds},
		{"sound gate, waits, re-rendered replay", mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.Sound{Replay: groundtruth.Rerendered}
			return g, g
		}), racetest.Inconclusive, racetest.Holds},
		{"in-flight lock only, a later retry runs again", mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.InFlightOnly{}
			return g, g
		}), racetest.Inconclusive, racetest.Broken},
		{"no dedupe", mem(func() (http.Handler, groundtruth.Effects) {
			g := &groundtruth.NoDedupe{}
			return g, g
		}), racetest.Inconclusive, racetest.Broken},
		{"ON CONFLICT DO NOTHING, nullable key part", mem(func() (http.Handler, groundtruth.Effects) {
			g := groundtruth.NewOnConflictClaim(pool, "claims_nullable")
			return g, g
		}), racetest.Inconclusive, racetest.Broken},
		{"ON CONFLICT DO NOTHING, NULLS NOT DISTINCT", mem(func() (http.Handler, groundtruth.Effects) {
			g := groundtruth.NewOnConflictClaim(pool, "claims_nnd")
			return g, g
		}), racetest.Holds, racetest.Holds},
		{"express-idempotency on Redis (npm)", startExpressIdempotency, racetest.Inconclusive, racetest.Broken},
		{"Fiber idempotency middleware (Go)", startFiberIdempotency, racetest.Inconclusive, racetest.Holds},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, oracle := range []bool{false, true} {
				want := c.without
				if oracle {
					want = c.with
				}
				tg := c.start(t)
				args := []string{"race", "http", "-H", tg.keyHeader, "-d", `{"amount":100}`,
					"--rounds", "100", "--settle", "5ms", "--format", "json"}
				if oracle {
					args = append(args, "--effect-url", tg.effectsURL)
				}
				code, out, errs := runCmd(t, append(args, tg.url)...)
				var res racetest.Result
				if err := json.Unmarshal([]byte(out), &res); err != nil {
					t.Fatalf("oracle %v: exit %d, not JSON (%v):\n%s\nstderr: %s", oracle, code, err, out, errs)
				}
				doubled := tg.doubled()
				got := res.Verdict.Status
				t.Logf("oracle %v: %s, exit %d; the target doubled %d keys; %s", oracle, got, code, doubled, res.Verdict.Sentence)
				if doubled > 0 && got == racetest.Holds {
					t.Errorf("oracle %v: HOLDS although the target counted two effects for %d keys: %s", oracle, doubled, res.Verdict.Sentence)
				}
				if doubled == 0 && got == racetest.Broken {
					t.Errorf("oracle %v: BROKEN although the target never counted two effects for a key: %s", oracle, res.Verdict.Sentence)
				}
				if got != want || code != exitFor(want) {
					t.Errorf("oracle %v: %s exit %d, want %s exit %d: %s", oracle, got, code, want, exitFor(want), res.Verdict.Sentence)
				}
			}
		})
	}
}

func exitFor(st racetest.Status) int {
	return map[racetest.Status]int{racetest.Holds: ExitOK, racetest.Broken: ExitFindings, racetest.Inconclusive: ExitInconclusive}[st]
}

// startGoTarget serves an in-process target for the test.
func startGoTarget(t *testing.T, h func() (http.Handler, groundtruth.Effects)) truthTarget {
	t.Helper()
	handler, eff := h()
	srv, err := groundtruth.Start(handler, eff)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return truthTarget{url: srv.URL, effectsURL: srv.EffectsURL, keyHeader: "Idempotency-Key: {{key}}",
		doubled: func() int {
			n, err := eff.Doubled(context.Background())
			if err != nil {
				t.Fatalf("the target's own count: %v", err)
			}
			return n
		}}
}

// missing fails under CI=true and skips otherwise: third-party targets
// never pass by skipping in CI.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format+" (CI needs it: .ci/run installs it)", args...)
	}
	t.Skipf(format, args...)
}

// startProcess runs argv in dir, reads the port it prints and returns a
// target on it; the process is killed when the test ends.
func startProcess(t *testing.T, dir string, env []string, keyHeader, keyParam string, argv ...string) truthTarget {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{w: &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	port, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("%s did not print its port: %v; stderr: %s", argv[0], err, cmd.Stderr.(*lockedWriter).String())
	}
	base := "http://127.0.0.1:" + strings.TrimSpace(port)
	return truthTarget{url: base + "/charges", effectsURL: base + "/effects?key=" + keyParam, keyHeader: keyHeader,
		doubled: func() int { return getCount(t, base+"/doubled") }}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

func getCount(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("the target's own count: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("the target's own count: %q", b)
	}
	return n
}

var npmOnce sync.Once

// startExpressIdempotency runs testdata/race/node/express-idempotency-redis.js:
// express-idempotency with its Redis adapter, on the local Redis.
func startExpressIdempotency(t *testing.T) truthTarget {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not installed")
	}
	redisURL := os.Getenv("REDIS_URL")
	if redisURL == "" {
		redisURL = "redis://127.0.0.1:6379"
	}
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(redisURL, "redis://"), time.Second); err != nil {
		missing(t, "no Redis at %s: %v", redisURL, err)
	} else {
		c.Close()
	}
	dir := filepath.Join("..", "testdata", "race", "node")
	npmOnce.Do(func() {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "express-idempotency-redis-adapter")); err == nil {
			return
		}
		t.Logf("installing the npm packages of %s (npm ci)", dir)
		if out, err := exec.Command("npm", "ci", "--silent", "--no-audit", "--no-fund", "--prefix", dir).CombinedOutput(); err != nil {
			t.Logf("npm ci: %v\n%s", err, out)
		}
	})
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "express-idempotency-redis-adapter")); err != nil {
		missing(t, "the npm packages of %s are not installed (run npm ci --prefix %s)", dir, dir)
	}
	return startProcess(t, dir, []string{"REDIS_URL=" + redisURL}, "Idempotency-Key: {{key}}", "{{key}}", node, "express-idempotency-redis.js")
}

var (
	fiberOnce sync.Once
	fiberDir  string // the suite's temporary directory
	fiberBin  string
	fiberErr  error
)

// startFiberIdempotency builds and runs testdata/race/fiber, its own
// module: Fiber's idempotency middleware with its defaults, whose key
// header is X-Idempotency-Key and must be a 36-character UUID.
func startFiberIdempotency(t *testing.T) truthTarget {
	t.Helper()
	fiberOnce.Do(func() {
		fiberBin = filepath.Join(fiberDir, "fiber")
		cmd := exec.Command("go", "build", "-o", fiberBin, ".")
		cmd.Dir = filepath.Join("..", "testdata", "race", "fiber")
		if out, err := cmd.CombinedOutput(); err != nil {
			fiberErr = &buildError{err: err, out: string(out)}
		}
	})
	if fiberErr != nil {
		missing(t, "building the Fiber target (its module is downloaded by .ci/run): %v", fiberErr)
	}
	return startProcess(t, "", nil, "X-Idempotency-Key: {{uuid}}", "{{uuid}}", fiberBin)
}

type buildError struct {
	err error
	out string
}

func (b *buildError) Error() string { return b.err.Error() + "\n" + b.out }
