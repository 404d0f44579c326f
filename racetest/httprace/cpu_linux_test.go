package httprace

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/racetest"
	"golang.org/x/sys/unix"
)

// cpuWatch is an effect oracle that counts with the gate and, each time it
// is asked (before and after every round, while the run is going), notes
// how many CPUs the least free thread of the process may use.
type cpuWatch struct {
	g    *Gate
	mu   sync.Mutex
	seen []int
}

func (c *cpuWatch) Count(_ context.Context, v racetest.RoundValues) (int64, error) {
	c.mu.Lock()
	c.seen = append(c.seen, fewestCPUs())
	c.mu.Unlock()
	return int64(c.g.Effects(v.Key)), nil
}

func (c *cpuWatch) Evidence() string { return "the gate's count" }

// fewestCPUs is the smallest number of CPUs any thread of this process may
// run on.
func fewestCPUs() int {
	tids, err := threadIDs()
	if err != nil {
		return -1
	}
	fewest := 1 << 20
	for _, tid := range tids {
		var set unix.CPUSet
		if unix.SchedGetaffinity(tid, &set) == nil {
			fewest = min(fewest, set.Count())
		}
	}
	return fewest
}

// With OneCPU, a race against a target on this machine runs every thread of
// the process on one CPU, releases HTTP/1.1 tails with wake (its unfinished
// OPTIONS * reaches the server), says so in a note, and gives every thread
// its CPUs back when the run ends.
func TestOneCPUPinsTheProbeForALocalTarget(t *testing.T) {
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		t.Fatal(err)
	}
	if all.Count() < 2 {
		t.Skip("this process may use only one CPU: nothing to pin")
	}
	g := &Gate{}
	srv := httptest.NewUnstartedServer(g)
	rec := &recordingListener{Listener: srv.Listener}
	srv.Listener = rec
	srv.Start()
	defer srv.Close()
	watch := &cpuWatch{g: g}
	p := quick(srv.URL + "/claims")
	p.Sync, p.OneCPU, p.Rounds, p.NoCalibrate, p.Effect = SyncH1, true, 3, true, watch
	res := run(t, p)
	if res.Verdict.Status != racetest.Holds {
		t.Fatalf("verdict %s (%s), want holds", res.Verdict.Status, res.Verdict.Sentence)
	}
	if len(watch.seen) != 6 {
		t.Fatalf("the oracle was asked %d times, want 6", len(watch.seen))
	}
	for i, n := range watch.seen {
		if n != 1 {
			t.Errorf("count %d during the run: a thread could use %d CPUs, want 1", i+1, n)
		}
	}
	if n := fewestCPUs(); n != all.Count() {
		t.Errorf("after the run a thread may use %d CPUs, want all %d back", n, all.Count())
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "the probe ran on CPU") {
		t.Errorf("no note says the probe was pinned: %q", res.Notes)
	}
	srv.CloseClientConnections()
	wakes := 0
	for _, got := range rec.received() {
		if strings.HasPrefix(got, "OPTIONS * ") {
			wakes++
		}
	}
	if wakes != 3 {
		t.Errorf("%d wake connections, want one per round (3): the auto release on one CPU is wake", wakes)
	}
}

// Without OneCPU, or for a target elsewhere, nothing is pinned.
func TestOneCPULeavesOtherRunsAlone(t *testing.T) {
	for _, c := range []struct {
		url   string
		local bool
	}{
		{"http://127.0.0.1:8080/x", true},
		{"http://127.3.4.5/x", true},
		{"http://[::1]:8080/x", true},
		{"http://localhost:3000/x", true},
		{"http://api.localhost/x", true},
		{"https://10.0.0.1/x", false},
		{"https://192.0.2.7:8443/x", false},
		{"http://no-such-host.invalid/x", false},
	} {
		if got := targetIsLocal(context.Background(), c.url); got != c.local {
			t.Errorf("targetIsLocal(%s) = %v, want %v", c.url, got, c.local)
		}
	}
	g := &Gate{}
	srv := httptest.NewServer(g)
	defer srv.Close()
	watch := &cpuWatch{g: g}
	p := quick(srv.URL + "/claims")
	p.Sync, p.Rounds, p.NoCalibrate, p.Effect = SyncH1, 2, true, watch
	res := run(t, p)
	var all unix.CPUSet
	_ = unix.SchedGetaffinity(0, &all)
	for i, n := range watch.seen {
		if n != all.Count() {
			t.Errorf("count %d: a thread could use %d CPUs without OneCPU, want %d", i+1, n, all.Count())
		}
	}
	if strings.Contains(strings.Join(res.Notes, "\n"), "ran on CPU") {
		t.Errorf("a note says the probe was pinned without OneCPU: %q", res.Notes)
	}
}
