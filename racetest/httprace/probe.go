package httprace

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// Sync modes and split points (docs/race.md, "Landing requests together").
const (
	SyncH1   = "h1"
	SyncH2   = "h2"
	SyncAuto = "auto"

	SplitHeaders  = "headers"
	SplitLastByte = "last-byte"

	// HTTP/1.1 release methods (docs/race-sync.md): goroutines spinning
	// for the last 2 ms (the default), goroutines parked on a channel that
	// is closed, one goroutine locked to its OS thread writing every tail
	// back to back in an order rotated each round, or that thread writing
	// first to an extra connection whose request is never finished, so
	// that the server is awake, not asleep in its poller, when the tails
	// arrive.
	ReleaseSpin   = "spin"
	ReleaseParked = "parked"
	ReleaseThread = "thread"
	ReleaseWake   = "wake"
	// ReleaseAuto is wake when the probe runs on one CPU (OneCPU, a
	// target on this machine) and spin otherwise; so is "".
	ReleaseAuto = "auto"
)

// maxBody bounds how much of a response body is kept for replay detection.
const maxBody = 1 << 20

// Header is one request header; both parts are templates.
type Header struct {
	Name  string
	Value racetest.Template
}

// Probe describes an HTTP race: the request, how many at once, how many
// rounds, how they are synchronised and how responses are classified.
type Probe struct {
	Method string
	URL    racetest.Template
	Header []Header
	Body   racetest.Template

	N      int
	Rounds int
	Sync   string // h1, h2 or auto
	Split  string // headers or last-byte (h1 and h2)
	// Release is how HTTP/1.1 tails are released: auto (the default),
	// spin, parked, thread or wake.
	Release string
	// OneCPU, when the target is on this machine (its host resolves to
	// loopback addresses only), runs every thread of this process on one
	// CPU for the run (Linux), so that the server keeps the others: the
	// probe's own threads otherwise take a core from it now and then
	// (docs/race-sync.md). It changes the whole process: leave it false
	// when the server runs in the same process (httptest, idemtest).
	OneCPU bool
	// H2 varies the HTTP/2 burst's frames for the benchmark; the zero
	// value is the probe's own layout.
	H2 H2Layout

	// Timeout bounds each request from its release; Deadline bounds the
	// whole run. Every connection's deadline is the earlier of the two.
	Timeout  time.Duration
	Deadline time.Duration
	// Window marks a round whose spread exceeds it as inconclusive (0: off).
	Window time.Duration
	// Settle is how long the withheld heads get to reach the server before
	// the release (about 100 ms, docs/race.md).
	Settle time.Duration

	Insecure   bool
	Force      bool
	Classifier racetest.Classifier
	// Effect is the effect oracle; nil when there is none.
	Effect EffectCounter
	// Marker is the header by which the server marks a replay.
	Marker racetest.ReplayMarker
	// NoCalibrate skips the calibration: identical successes are then
	// unresolved unless the oracle counts them.
	NoCalibrate bool
	// Secrets are header names redacted wherever a request is shown, on
	// top of Authorization, Proxy-Authorization, Cookie and Set-Cookie.
	Secrets []string
	// RunID makes keys unique across runs; empty means a random one.
	RunID string
	// UUIDKeys makes each round's key ({{key}}, and what an oracle counts
	// by) the round's random UUID instead of idemcheck-RUN-ROUND, for
	// servers that insist on UUID keys and uuid columns that store them.
	UUIDKeys bool
	// Build, when set, makes every request (the rounds', the
	// calibration's, the conformance checks') from its round's values
	// instead of rendering Method, URL, Header and Body: a Go caller
	// builds it in code, with the key wherever the API wants it. URL still
	// names the target: its scheme and host choose the protocol.
	Build func(v racetest.RoundValues) (*http.Request, error)

	// contentTypeNote says which Content-Type Defaults chose for the body.
	contentTypeNote string
}

// Defaults fills zero fields with the documented defaults.
func (p *Probe) Defaults() {
	if p.Method == "" {
		p.Method = http.MethodPost
	}
	if p.N == 0 {
		p.N = 2
	}
	if p.Rounds == 0 {
		p.Rounds = 30
	}
	if p.Sync == "" {
		p.Sync = SyncAuto
	}
	if p.Split == "" {
		p.Split = SplitHeaders
	}
	if p.Timeout == 0 {
		p.Timeout = 10 * time.Second
	}
	if p.Deadline == 0 {
		p.Deadline = 5 * time.Minute
	}
	if p.Settle == 0 {
		p.Settle = 100 * time.Millisecond
	}
	if p.Classifier.Win == nil {
		p.Classifier.Win = racetest.DefaultClassifier().Win
	}
	if p.Classifier.Refuse == nil {
		p.Classifier.Refuse = racetest.DefaultClassifier().Refuse
	}
	if p.Marker.Name == "" {
		p.Marker = racetest.DefaultReplayMarker()
	}
	if p.RunID == "" {
		p.RunID = racetest.NewRunID()
	}
	p.defaultContentType()
}

// Validate rejects settings that cannot run or that need Force.
func (p *Probe) Validate() error {
	if err := racetest.CheckLimits(p.N, p.Rounds, p.Force); err != nil {
		return err
	}
	switch p.Sync {
	case SyncH1, SyncH2, SyncAuto:
	default:
		return fmt.Errorf("--sync %q: want h1, h2 or auto", p.Sync)
	}
	switch p.Split {
	case SplitHeaders, SplitLastByte:
	default:
		return fmt.Errorf("--split %q: want headers or last-byte", p.Split)
	}
	switch p.Release {
	case "", ReleaseAuto, ReleaseSpin, ReleaseParked, ReleaseThread, ReleaseWake:
	default:
		return fmt.Errorf("--release %q: want auto, spin, parked, thread or wake", p.Release)
	}
	if _, err := parseTarget(p.URL.Render(racetest.RoundValues{Key: "k", UUID: "u"})); err != nil {
		return err
	}
	return nil
}

// Run probes the target for p.Rounds rounds, or until the deadline, and
// judges the result. It returns an error only when the probe could not run
// at all (bad settings, target unreachable in the first round).
func Run(ctx context.Context, p Probe) (*racetest.Result, error) {
	p.Defaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.Deadline)
	defer cancel()

	res := &racetest.Result{Target: redactURL(string(p.URL)), Method: p.Method, N: p.N, Sync: p.Sync, Split: p.Split, Window: p.Window}
	if p.contentTypeNote != "" {
		res.Notes = append(res.Notes, p.contentTypeNote)
	}
	pinned := false
	if p.OneCPU && targetIsLocal(ctx, p.URL.Render(racetest.RoundValues{Key: "k", UUID: "u"})) {
		cpu, restore, err := pinToOneCPU()
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("the target is on this machine; the probe shares every CPU with it (%v)", err))
		} else {
			defer restore()
			pinned = true
			res.Notes = append(res.Notes, fmt.Sprintf("the target is on this machine: the probe ran on CPU %d only, leaving the others to the server", cpu))
		}
	}
	if p.Release == "" || p.Release == ReleaseAuto {
		p.Release = ReleaseSpin
		if pinned {
			p.Release = ReleaseWake
		}
	}
	sync, why, warn, err := chooseSync(ctx, &p)
	if err != nil {
		return nil, err
	}
	res.Sync, res.SyncReason = sync, why
	res.Warnings = append(res.Warnings, warn...)
	if p.Effect != nil {
		res.Oracle = p.Effect.Evidence()
	}
	if p.NoCalibrate {
		res.Calibration = racetest.SkippedCalibration()
	} else if res.Calibration, err = calibrate(ctx, &p, sync); err != nil {
		return nil, err
	}
	run := &httpRun{p: &p, sync: sync, cal: res.Calibration, oracle: res.Oracle}
	if err := racetest.RunRounds(ctx, run, res, p.Rounds, p.Deadline); err != nil {
		return nil, err
	}
	return res, nil
}

// httpRun is the HTTP probe's Prober: the settings, the protocol chosen
// and the evidence gathered before the first round.
type httpRun struct {
	p      *Probe
	sync   string
	cal    *racetest.Calibration
	oracle string
}

// Round fires one burst and resolves its successes on the evidence.
func (r *httpRun) Round(ctx context.Context, i int) (racetest.Round, []string, error) {
	round, warn, err := runRound(ctx, r.p, r.sync, i)
	if err == nil {
		round.Resolve(r.cal, r.oracle)
	}
	return round, warn, err
}

// runRound renders the request, counts the effect around the burst and
// classifies what came back.
func runRound(ctx context.Context, p *Probe, sync string, i int) (racetest.Round, []string, error) {
	vals := p.values(p.RunID, i)
	req, err := renderRequest(p, vals)
	if err != nil {
		return racetest.Round{}, nil, err
	}
	var before int64
	if p.Effect != nil {
		if before, err = p.Effect.Count(ctx, vals); err != nil {
			return racetest.Round{}, nil, fmt.Errorf("%s before the round: %w", p.Effect.Evidence(), err)
		}
	}
	var b burst
	var warn []string
	if sync == SyncH2 {
		b, warn, err = burstH2(ctx, p, req)
	} else {
		b, err = burstH1(ctx, p, req, i)
	}
	if err != nil {
		return racetest.Round{}, warn, err
	}
	round := racetest.Round{Index: i, Key: vals.Key, Values: vals, ReleaseSpread: b.spread, Start: firstOf(b.released)}
	for k, r := range b.responses {
		replayed := p.Marker.Marks(r.Header)
		kind, msg := p.Classifier.Classify(r, replayed)
		o := racetest.Outcome{Request: k + 1, Kind: kind, Status: r.Status, Err: msg, Replayed: replayed, Elapsed: b.elapsed[k], Body: r.Body}
		o.Arrival = serverArrival(r.Header)
		if k < len(b.released) && !b.released[k].IsZero() {
			o.Released = b.released[k].Sub(round.Start)
		}
		round.Outcomes = append(round.Outcomes, o)
	}
	round.ArrivalSpread = arrivalSpread(round.Outcomes)
	if p.Effect != nil {
		after, err := p.Effect.Count(ctx, vals)
		if err != nil {
			return racetest.Round{}, warn, fmt.Errorf("%s after the round: %w", p.Effect.Evidence(), err)
		}
		n := int(after - before)
		round.Effects = &n
	}
	round.TooWide = p.Window > 0 && round.Spread() > p.Window
	return round, warn, nil
}

// burst is what one synchronised release produced, indexed by request.
type burst struct {
	responses []racetest.Response
	elapsed   []time.Duration
	spread    time.Duration
	// released is when each request's release write ended (zero when it
	// was never released).
	released []time.Time
}

// firstOf is the earliest non-zero time of ts, or the zero time.
func firstOf(ts []time.Time) time.Time {
	var lo time.Time
	for _, t := range ts {
		if !t.IsZero() && (lo.IsZero() || t.Before(lo)) {
			lo = t
		}
	}
	return lo
}

// request is one rendered request, ready to be written in any protocol.
type request struct {
	method string
	target target
	header []Header // rendered values in Value
	body   []byte
}

func renderRequest(p *Probe, v racetest.RoundValues) (request, error) {
	if p.Build != nil {
		return buildRequest(p, v)
	}
	t, err := parseTarget(p.URL.Render(v))
	if err != nil {
		return request{}, err
	}
	r := request{method: p.Method, target: t, body: []byte(p.Body.Render(v))}
	for _, h := range p.Header {
		r.header = append(r.header, Header{Name: h.Name, Value: racetest.Template(h.Value.Render(v))})
	}
	return r, nil
}

// serverArrival reads the target's arrival clock from a Server-Timing
// metric named "arrival" (dur in milliseconds on any server clock, e.g.
// Server-Timing: arrival;dur=1717171717123.456).
func serverArrival(h http.Header) *time.Duration {
	for _, line := range h.Values("Server-Timing") {
		for _, metric := range strings.Split(line, ",") {
			params := strings.Split(metric, ";")
			if strings.TrimSpace(params[0]) != "arrival" {
				continue
			}
			for _, prm := range params[1:] {
				k, v, ok := strings.Cut(strings.TrimSpace(prm), "=")
				if !ok || k != "dur" {
					continue
				}
				ms, err := strconv.ParseFloat(strings.Trim(v, `"`), 64)
				if err != nil {
					continue
				}
				d := time.Duration(ms * float64(time.Millisecond))
				return &d
			}
		}
	}
	return nil
}

// arrivalSpread is the server-side spread when every response carried an
// arrival time.
func arrivalSpread(outs []racetest.Outcome) *time.Duration {
	var lo, hi time.Duration
	for i, o := range outs {
		if o.Arrival == nil {
			return nil
		}
		if i == 0 || *o.Arrival < lo {
			lo = *o.Arrival
		}
		if i == 0 || *o.Arrival > hi {
			hi = *o.Arrival
		}
	}
	if len(outs) == 0 {
		return nil
	}
	d := hi - lo
	return &d
}
