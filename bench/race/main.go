// Command race measures the race probe on loopback. The catch, sink and
// spread tables are issue 4's: how often the probe catches a read-then-write
// gate per window compared with a naive WaitGroup probe, how often an
// HTTP/2 release block arrives in a single read at a raw sink, and the
// release and arrival spread medians for N = 2, 8 and 32. The sync table
// is issue 17's (docs/race-sync.md): every release method side by side
// against a spin window, a sleep window, a PostgreSQL read-then-insert and
// a Node.js server, catch rates from counted effects with 95% Wilson
// intervals, printed as markdown.
//
//	go run ./bench/race -rounds 100
//	go run ./bench/race -tables sync -rounds 500 -n 2 -targets spin,sleep -methods auto,h1-headers,naive
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/idemcheck/idemcheck/racetest/httprace"
)

func main() {
	rounds := flag.Int("rounds", 100, "rounds per cell")
	batches := flag.Int("batches", 200, "HTTP/2 batches at the raw sink")
	settle := flag.Duration("settle", 20*time.Millisecond, "how long withheld heads settle before the release")
	tables := flag.String("tables", "catch,sink,spread", "which tables to print: catch, sink, spread, sync; or real alone (the real servers of docs/race-sync.md)")
	ns := flag.String("n", "2,8", "sync table: requests per round, comma-separated")
	windows := flag.String("windows", "1ms,200us,50us,20us", "sync table: the targets' read-then-write windows")
	targets := flag.String("targets", strings.Join(allTargets, ","), "sync table: targets (spin, sleep, pg, node, nginx; spin-tls, sleep-tls)")
	methods := flag.String("methods", strings.Join(allMethods, ","), "sync table: methods (auto, h1-headers, h1-spin, h1-parked, h1-thread, h1-wake, h1-warm, h1-none, h2, naive; HTTP/2 layouts: h2-withheld, h2-lastbyte, h2-withheld-grouped, h2-withheld-reverse, h2-nobody, h2-reverse)")
	dsn := flag.String("dsn", defaultDSN(), "sync table: PostgreSQL for the pg target")
	serve := flag.Duration("serve", -1, "internal: serve a target with this read-then-write window and print its URL")
	serveKind := flag.String("serve-kind", "spin", "internal: the target -serve serves (spin, sleep, pg)")
	idemcheckBin := flag.String("idemcheck", "", "real table: the idemcheck binary to measure (go build -o DIR/idemcheck .)")
	realTargetsFlag := flag.String("real-targets", strings.Join(realTargets, ","), "real table: targets")
	realMethodsFlag := flag.String("real-methods", strings.Join(realMethods, ","), "real table: methods (idemcheck, naive-keepalive, naive-fresh)")
	npmCache := flag.String("npm-cache", "/work/cache/npm", "real table: the directory express and pg are installed in (npm install --prefix DIR)")
	load := flag.Int("load", 0, "real table: busy processes (yes > /dev/null) to run beside the measurement")
	idemcheckArgs := flag.String("idemcheck-args", "", "real table: more arguments for idemcheck race http, space-separated (none: its defaults)")
	label := flag.String("label", "", "real table: what the idemcheck binary was built from, for the header")
	oracle := flag.Bool("oracle", false, "real table: give idemcheck the target's count (--effect-url)")
	flag.Parse()
	if *serve >= 0 {
		if strings.HasPrefix(*serveKind, "real-") {
			serveReal(*serveKind, *serve)
			return
		}
		serveTarget(*serveKind, *serve, *dsn)
		return
	}
	if strings.Contains(*tables, "real") {
		var nList []int
		for _, s := range parseList(*ns) {
			n, err := strconv.Atoi(s)
			if err != nil || n < 2 {
				fmt.Fprintf(os.Stderr, "bench: -n %q: want numbers of 2 or more\n", s)
				os.Exit(2)
			}
			nList = append(nList, n)
		}
		rc := realConfig{idemcheck: *idemcheckBin, rounds: *rounds, ns: nList, targets: parseList(*realTargetsFlag),
			methods: parseList(*realMethodsFlag), dsn: *dsn, npmCache: *npmCache, load: *load, extra: strings.Fields(*idemcheckArgs), label: *label, oracle: *oracle}
		if err := realTable(os.Stdout, rc); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	cfg := syncConfig{rounds: *rounds, settle: *settle, ns: nil, targets: parseList(*targets), methods: parseList(*methods), dsn: *dsn}
	for _, s := range parseList(*ns) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 2 {
			fmt.Fprintf(os.Stderr, "bench: -n %q: want numbers of 2 or more\n", s)
			os.Exit(2)
		}
		cfg.ns = append(cfg.ns, n)
	}
	for _, s := range parseList(*windows) {
		d, err := time.ParseDuration(strings.ReplaceAll(s, "µs", "us"))
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: -windows %q: %v\n", s, err)
			os.Exit(2)
		}
		cfg.windows = append(cfg.windows, d)
	}
	if err := run(os.Stdout, *tables, *rounds, *batches, *settle, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func defaultDSN() string {
	if d := os.Getenv("IDEMCHECK_TEST_DSN"); d != "" {
		return d
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

func run(w io.Writer, tables string, rounds, batches int, settle time.Duration, cfg syncConfig) error {
	for _, t := range []struct {
		name string
		f    func(io.Writer, int, int, time.Duration) error
	}{{"catch", catchTable}, {"sink", sinkTable}, {"spread", spreadTable}} {
		if strings.Contains(tables, t.name) {
			if err := t.f(w, rounds, batches, settle); err != nil {
				return err
			}
			fmt.Fprintln(w)
		}
	}
	if strings.Contains(tables, "sync") {
		if err := syncTable(w, cfg); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}

func catchTable(w io.Writer, rounds, _ int, settle time.Duration) error {
	fmt.Fprintf(w, "read-then-write gate in a child process on loopback, N=2, %d rounds per cell: rounds in which the duplicate was caught\n\n", rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "window\tidemcheck h1 (headers)\tidemcheck h1 (last-byte)\tidemcheck h2 (single packet)\tnaive WaitGroup + http.Client")
	for _, window := range []time.Duration{time.Millisecond, 200 * time.Microsecond, 50 * time.Microsecond, 20 * time.Microsecond} {
		h1, err := catchRate(window, rounds, settle, httprace.SyncH1, httprace.SplitHeaders)
		if err != nil {
			return err
		}
		lb, err := catchRate(window, rounds, settle, httprace.SyncH1, httprace.SplitLastByte)
		if err != nil {
			return err
		}
		h2, err := catchRate(window, rounds, settle, httprace.SyncH2, httprace.SplitHeaders)
		if err != nil {
			return err
		}
		naive, err := naiveCatchRate(window, rounds)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", window, pct(h1, rounds), pct(lb, rounds), pct(h2, rounds), pct(naive, rounds))
	}
	return tw.Flush()
}

func sinkTable(w io.Writer, _, batches int, _ time.Duration) error {
	fmt.Fprintf(w, "HTTP/2 release block at a raw loopback sink, %d batches\n\n", batches)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "N\tblock bytes\tone write: single read\tone write per frame: single read")
	for _, n := range []int{2, 8, 32} {
		one, err := measureSinglePacket(context.Background(), n, batches, time.Millisecond, false)
		if err != nil {
			return err
		}
		per, err := measureSinglePacket(context.Background(), n, batches, time.Millisecond, true)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\n", n, one.blockBytes, pct(one.singleRead, batches), pct(per.singleRead, batches))
	}
	return tw.Flush()
}

func spreadTable(w io.Writer, rounds, _ int, settle time.Duration) error {
	fmt.Fprintf(w, "spread medians against an atomic gate in a child process on loopback, %d rounds each (release: client writes; arrival: Server-Timing)\n\n", rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "N\th1 release\th1 arrival\th2 release\th2 arrival\tnaive arrival")
	for _, n := range []int{2, 8, 32} {
		h1rel, h1arr, err := spreads(n, rounds, settle, httprace.SyncH1)
		if err != nil {
			return err
		}
		h2rel, h2arr, err := spreads(n, rounds, settle, httprace.SyncH2)
		if err != nil {
			return err
		}
		naive, err := naiveArrivalSpread(n, rounds)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", n, h1rel, h1arr, h2rel, h2arr, naive)
	}
	return tw.Flush()
}

// serveMux serves mux on a loopback port over HTTP/1.1 and cleartext
// HTTP/2 (prior knowledge), prints its base URL and serves until killed:
// the target runs in its own process so that the probe's goroutines and
// the handlers do not share a scheduler.
func serveMux(mux http.Handler) {
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	fmt.Println(srv.URL)
	select {}
}

// gateProcess is a gate served by a child process over HTTP/1.1 and
// cleartext HTTP/2 (prior knowledge).
type gateProcess struct {
	URL string
	cmd *exec.Cmd
}

func startGate(window time.Duration) (*gateProcess, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-serve", window.String(), "-serve-kind", "spin")
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
		return nil, fmt.Errorf("gate process: %v", err)
	}
	return &gateProcess{URL: strings.TrimSpace(line), cmd: cmd}, nil
}

func (g *gateProcess) Close() {
	g.cmd.Process.Kill()
	g.cmd.Wait()
}

func probe(url string, n, rounds int, settle time.Duration, sync, split string) httprace.Probe {
	p := httprace.DemoProbe(url)
	p.N, p.Rounds, p.Settle, p.Sync, p.Split = n, rounds, settle, sync, split
	return p
}

// catchRate counts the rounds with more than one win against a gate with
// the given read-then-write window.
func catchRate(window time.Duration, rounds int, settle time.Duration, sync, split string) (int, error) {
	srv, err := startGate(window)
	if err != nil {
		return 0, err
	}
	defer srv.Close()
	res, err := httprace.Run(context.Background(), probe(srv.URL, 2, rounds, settle, sync, split))
	if err != nil {
		return 0, err
	}
	caught := 0
	for i := range res.Rounds {
		if res.Rounds[i].Wins() > 1 {
			caught++
		}
	}
	return caught, nil
}

// naiveRound is what a hand-written test does: N goroutines sharing one
// http.Client, released by a sync.WaitGroup. It returns the wins and the
// server's arrival times.
func naiveRound(client *http.Client, url, key string, n int) (int, []float64) {
	var start, done sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	var arrivals []float64
	start.Add(1)
	for range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"round":1}`))
			req.Header.Set(httprace.KeyHeader, key)
			resp, err := client.Do(req)
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			if resp.StatusCode == http.StatusCreated {
				wins++
			}
			if a, ok := arrivalMillis(resp.Header.Get("Server-Timing")); ok {
				arrivals = append(arrivals, a)
			}
		}()
	}
	start.Done()
	done.Wait()
	return wins, arrivals
}

func naiveCatchRate(window time.Duration, rounds int) (int, error) {
	srv, err := startGate(window)
	if err != nil {
		return 0, err
	}
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	caught := 0
	for i := range rounds {
		if wins, _ := naiveRound(client, srv.URL, fmt.Sprintf("naive-%d-%d", window, i), 2); wins > 1 {
			caught++
		}
	}
	return caught, nil
}

func naiveArrivalSpread(n, rounds int) (string, error) {
	srv, err := startGate(0)
	if err != nil {
		return "", err
	}
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	var spreads []time.Duration
	for i := range rounds {
		_, arr := naiveRound(client, srv.URL, fmt.Sprintf("naive-spread-%d-%d", n, i), n)
		if len(arr) == n {
			sort.Float64s(arr)
			spreads = append(spreads, time.Duration((arr[n-1]-arr[0])*float64(time.Millisecond)))
		}
	}
	return median(spreads), nil
}

func arrivalMillis(h string) (float64, bool) {
	_, v, ok := strings.Cut(h, "dur=")
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

// spreads returns the median release and arrival spreads of a run against
// an atomic gate.
func spreads(n, rounds int, settle time.Duration, sync string) (string, string, error) {
	srv, err := startGate(0)
	if err != nil {
		return "", "", err
	}
	defer srv.Close()
	res, err := httprace.Run(context.Background(), probe(srv.URL, n, rounds, settle, sync, httprace.SplitHeaders))
	if err != nil {
		return "", "", err
	}
	var rel, arr []time.Duration
	for _, r := range res.Rounds {
		rel = append(rel, r.ReleaseSpread)
		if r.ArrivalSpread != nil {
			arr = append(arr, *r.ArrivalSpread)
		}
	}
	return median(rel), median(arr), nil
}

func median(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2].Round(100 * time.Nanosecond).String()
}

func pct(k, of int) string {
	return fmt.Sprintf("%d/%d (%.0f%%)", k, of, 100*float64(k)/float64(of))
}
