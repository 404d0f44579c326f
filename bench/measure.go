package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// lintResult is what was measured for one corpus.
type lintResult struct {
	corpus     *corpus
	statements int
	lint       time.Duration // best wall time of the lint process
	maxRSS     int64         // largest peak resident set of the lint runs, bytes
	parse      time.Duration // best time of one goroutine running pg_query.Parse on every statement
	psql       time.Duration // psql replaying the corpus into a scratch database
	psqlErrors int
	ir         *instructionCounts // with -instructions
}

// buildIdemcheck builds the command once, so that lint is measured as the
// process a user runs.
func buildIdemcheck(dir string) (string, error) {
	if _, err := os.Stat("go.mod"); err != nil {
		return "", errors.New("run from the repository root: go run ./bench")
	}
	bin, err := filepath.Abs(filepath.Join(dir, "idemcheck"))
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %v", err)
	}
	return bin, nil
}

func measureCorpus(c *corpus, bin string, o options, log io.Writer) (*lintResult, error) {
	r := &lintResult{corpus: c}
	var lints, parses []time.Duration
	// Lint and the baseline take turns, so that load from elsewhere on the
	// machine falls on both alike.
	for i := 0; i < o.runs; i++ {
		fmt.Fprintf(log, "corpus %s: lint and single-goroutine parse, run %d of %d\n", c.Name, i+1, o.runs)
		d, rss, err := runLint(bin, c.Path)
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %v", c.Name, err)
		}
		lints = append(lints, d)
		r.maxRSS = max(r.maxRSS, rss)
		r.statements, d = parseBaseline([]string{c.Path})
		parses = append(parses, d)
	}
	r.lint, r.parse = slices.Min(lints), slices.Min(parses)
	if !o.skipServer {
		fmt.Fprintf(log, "corpus %s: psql replay into a scratch database\n", c.Name)
		var err error
		if r.psql, r.psqlErrors, err = psqlReplay(c, o.dsn); err != nil {
			return nil, fmt.Errorf("corpus %s: %v", c.Name, err)
		}
	}
	return r, nil
}

// runLint runs `idemcheck lint` as a child process and returns its wall
// time and peak RSS. Exit status 1 (findings) is expected; 2 means the
// generated input did not read cleanly, which would make the figures lie.
//
// The peak is the child's VmHWM, polled from /proc while it runs. The
// rusage of the child would not do: Go starts children with vfork, so until
// exec the child shares this process's memory, and Linux carries that
// high-water mark into the child's ru_maxrss across exec.
func runLint(bin, path string) (time.Duration, int64, error) {
	cmd := exec.Command(bin, "lint", "--format", "json", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, fmt.Errorf("lint %s: %v", path, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	var peak int64
	var err error
	for waiting := true; waiting; {
		if hwm := vmHWM(status); hwm > peak {
			peak = hwm
		}
		select {
		case err = <-done:
			waiting = false
		case <-time.After(time.Millisecond):
		}
	}
	elapsed := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return 0, 0, fmt.Errorf("lint %s: %v\n%s", path, err, firstLines(stderr.String(), 10))
	}
	if peak == 0 {
		return 0, 0, errors.New("could not read the lint process's VmHWM from /proc")
	}
	return elapsed, peak, nil
}

// vmHWM reads a process's peak resident set from /proc/PID/status, in
// bytes; 0 when it cannot (the process has exited).
func vmHWM(statusPath string) int64 {
	b, err := os.ReadFile(statusPath)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// psqlReplay times psql applying every up file, in order, to a fresh
// database, as tools that lint against a scratch database do.
func psqlReplay(c *corpus, dsn string) (time.Duration, int, error) {
	name := fmt.Sprintf("idemcheck_bench_psql_%d", os.Getpid())
	if err := psqlCommand(dsn, "CREATE DATABASE "+name); err != nil {
		return 0, 0, err
	}
	defer psqlCommand(dsn, "DROP DATABASE IF EXISTS "+name)
	scratch, err := withDatabase(dsn, name)
	if err != nil {
		return 0, 0, err
	}
	args := []string{"-X", "-q", "-v", "ON_ERROR_STOP=0", "-d", scratch}
	for _, f := range c.Files {
		args = append(args, "-f", f)
	}
	cmd := exec.Command("psql", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("psql: %v\n%s", err, firstLines(stderr.String(), 10))
	}
	return time.Since(start), strings.Count(stderr.String(), "ERROR:"), nil
}

func psqlCommand(dsn, sql string) error {
	out, err := exec.Command("psql", "-X", "-q", "-d", dsn, "-c", sql).CombinedOutput()
	if err != nil {
		return fmt.Errorf("psql -c %q: %v: %s", sql, err, out)
	}
	return nil
}

// withDatabase points a connection string at another database.
func withDatabase(dsn, name string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return dsn + " dbname=" + name, nil
	}
	u.Path = "/" + name
	return u.String(), nil
}

// inspectResult is what BenchmarkInspect reported.
type inspectResult struct {
	wall, bare time.Duration
	roundTrips int
}

// measureInspect runs inspect's own benchmark, which reads the kept
// 10,000-table database (building it the first time) and times the bare
// catalog batch next to it.
func measureInspect(o options, log io.Writer) (*inspectResult, error) {
	fmt.Fprintln(log, "inspect: BenchmarkInspect on idemcheck_bench_10k (built on first use, which takes minutes)")
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^BenchmarkInspect$", "-benchtime", "5x", "-count", "3", "./inspect")
	cmd.Env = append(os.Environ(), "IDEMCHECK_TEST_DSN="+o.dsn)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("BenchmarkInspect: %v\n%s", err, firstLines(string(out), 20))
	}
	// Of the three results, the best inspect time and the best bare query
	// time, as for lint.
	var res *inspectResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchMetrics(sc.Text())
		if m == nil {
			continue
		}
		r := &inspectResult{
			wall:       time.Duration(m["ns/op"]),
			roundTrips: int(m["round-trips"]),
			bare:       time.Duration(m["bare-query-ms"] * float64(time.Millisecond)),
		}
		if res == nil {
			res = r
			continue
		}
		res.wall, res.bare = min(res.wall, r.wall), min(res.bare, r.bare)
		res.roundTrips = max(res.roundTrips, r.roundTrips)
	}
	if res == nil {
		return nil, fmt.Errorf("no result line in BenchmarkInspect's output:\n%s", firstLines(string(out), 20))
	}
	return res, nil
}

// benchMetrics reads "BenchmarkInspect-2  5  381905089 ns/op  223.6
// bare-query-ms  2.000 round-trips" into unit -> value; nil when the line
// is not that result or lacks a figure.
func benchMetrics(line string) map[string]float64 {
	f := strings.Fields(line)
	if len(f) < 2 || !strings.HasPrefix(f[0], "BenchmarkInspect") {
		return nil
	}
	m := map[string]float64{}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return nil
		}
		m[f[i+1]] = v
	}
	for _, unit := range []string{"ns/op", "round-trips", "bare-query-ms"} {
		if _, ok := m[unit]; !ok {
			return nil
		}
	}
	return m
}

// machine describes where the figures were measured.
func machine(o options) string {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	pg := "PostgreSQL not used"
	if !o.skipServer {
		if out, err := exec.Command("psql", "-X", "-At", "-d", o.dsn, "-c", "SHOW server_version").Output(); err == nil {
			pg = "PostgreSQL " + strings.TrimSpace(string(out))
		}
	}
	return fmt.Sprintf("%s, %d cores (GOMAXPROCS %d), %s/%s, %s, %s", cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		runtime.GOOS, runtime.GOARCH, runtime.Version(), pg)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
