package httprace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/racetest"

	"github.com/idemcheck/idemcheck/internal/humanize"
)

// Sync modes and split points (docs/race.md, "Landing requests together").
const (
	SyncH1   = "h1"
	SyncH2   = "h2"
	SyncAuto = "auto"

	SplitHeaders  = "headers"
	SplitLastByte = "last-byte"
	// SplitNone withholds nothing: each whole request is written at the
	// release, on a connection that is already open (and, with warm
	// connections, has carried a request), with no settle before it.
	SplitNone = "none"
	// SplitAuto is measured by --sync auto's pre-run (by the oracle, or by
	// the wins the responses show), and is none for HTTP/1.1 and headers
	// for HTTP/2 where nothing measures it.
	SplitAuto = "auto"

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
	// ReleaseAuto is chosen by the pre-run of --sync auto when an oracle
	// counts, and is wake otherwise; so is "".
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
	// TryOneCPU, with an oracle and a target on this machine, lets the
	// pre-run of --sync auto try the probe on one CPU as one of its
	// candidates (pinned for the run when it measures best).
	TryOneCPU bool
	// local is set by Run when the target is on this machine; pinChosen
	// when the pre-run chose the probe on one CPU.
	local, pinChosen bool
	// Warm keeps the HTTP/1.1 rounds' connections alive from round to
	// round, and has every new one carry a warm-up request (OPTIONS *,
	// or GET WarmURL) and its answer before its first
	// round, so that per-connection setup on the server is paid outside
	// the window (docs/race-sync.md, "Warm connections").
	Warm bool
	// WarmURL, with Warm, is the warm-up request's URL (GET), on the
	// target's scheme, host and port; empty: OPTIONS *.
	WarmURL string
	// pool holds the warm connections of a run (nil: a fresh connection
	// for every request).
	pool *connPool
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
	// SameKey sends one key in every round, on purpose: round 1 races it
	// and every later round retries it after it finished (a win there ran
	// the effect again). Without it, a request that would be the same in
	// every round (no {{key}}, {{uuid}} or {{round}} anywhere, or a Build
	// that ignores its key) is refused before anything is sent.
	SameKey bool
	// Build, when set, makes every request (the rounds', the
	// calibration's, the conformance checks') from its round's values
	// instead of rendering Method, URL, Header and Body: a Go caller
	// builds it in code, with the key wherever the API wants it. URL still
	// names the target: its scheme and host choose the protocol.
	Build func(v racetest.RoundValues) (*http.Request, error)
	// Progress, when set, is told of the run as it goes: Start once the
	// sync is chosen (before the calibration), Round after each round.
	// One that is also a PreRunProgress is told of --sync auto's pre-run,
	// which comes before Start.
	Progress racetest.Progress

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
	if p.Classifier.InFlight == nil {
		p.Classifier.InFlight = racetest.DefaultClassifier().InFlight
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
	case SplitHeaders, SplitLastByte, SplitNone, SplitAuto:
	default:
		return fmt.Errorf("--split %q: want auto, headers, last-byte or none", p.Split)
	}
	switch p.Release {
	case "", ReleaseAuto, ReleaseSpin, ReleaseParked, ReleaseThread, ReleaseWake:
	default:
		return fmt.Errorf("--release %q: want auto, spin, parked, thread or wake", p.Release)
	}
	t, err := parseTarget(p.URL.Render(racetest.RoundValues{Key: "k", UUID: "u"}))
	if err != nil {
		return err
	}
	if p.Warm {
		if _, err := newConnPool(t, p.WarmURL); err != nil {
			return err
		}
	}
	identical, err := p.roundsIdentical()
	if err != nil {
		return err
	}
	if identical && !p.SameKey {
		if p.Build != nil {
			return fmt.Errorf("%w: the request builder makes the same request for every key, so only round 1 would race a fresh key "+
				"and every later round would retry a finished one; put the key where the server reads it, or race one key on purpose (SameKey)", ErrIdenticalRounds)
		}
		return fmt.Errorf("%w: no {{key}}, {{uuid}} or {{round}} in the URL, the headers or the body, so only round 1 would race a fresh key "+
			"and every later round would retry a finished one; put {{key}} where the server reads its key (for example -H 'Idempotency-Key: {{key}}'), "+
			"or pass --same-key to race one key on purpose", ErrIdenticalRounds)
	}
	return nil
}

// ErrIdenticalRounds is Validate's error for a run whose rounds would all
// send the same request without SameKey: a forgotten {{key}}.
var ErrIdenticalRounds = errors.New("the requests of every round would be identical")

// roundsIdentical reports whether two rounds' requests come out the same:
// nothing in them varies with the round's values.
func (p *Probe) roundsIdentical() (bool, error) {
	if p.Build == nil {
		for _, t := range append([]racetest.Template{p.URL, p.Body}, headerValues(p.Header)...) {
			if t.Varies() {
				return false, nil
			}
		}
		return true, nil
	}
	a, err := renderRequest(p, p.values("check", 1))
	if err != nil {
		return false, err
	}
	b, err := renderRequest(p, p.values("check", 2))
	if err != nil {
		return false, err
	}
	return a.method == b.method && a.target == b.target && bytes.Equal(a.body, b.body) && slices.Equal(a.header, b.header), nil
}

func headerValues(hs []Header) []racetest.Template {
	var ts []racetest.Template
	for _, h := range hs {
		ts = append(ts, racetest.Template(h.Name), h.Value)
	}
	return ts
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
	pinRestore := func() {}

	res := &racetest.Result{Target: redactURL(string(p.URL)), Method: p.Method, N: p.N, Sync: p.Sync, Split: p.Split, Window: p.Window, SameKey: p.SameKey}
	if p.Marker.Declared {
		res.Marker = p.Marker.String()
	}
	if p.contentTypeNote != "" {
		res.Notes = append(res.Notes, p.contentTypeNote)
	}
	p.local = targetIsLocal(ctx, p.URL.Render(racetest.RoundValues{Key: "k", UUID: "u"}))
	pin := func() {
		cpu, restore, err := pinToOneCPU()
		if err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("the target is on this machine; the probe shares every CPU with it (%v)", err))
			p.OneCPU = false
			return
		}
		p.OneCPU = true
		pinRestore = restore
		res.Notes = append(res.Notes, fmt.Sprintf("the target is on this machine: the probe ran on CPU %d only, leaving the others to the server", cpu))
	}
	defer func() { pinRestore() }()
	if p.OneCPU && p.local {
		pin()
	}
	if p.Warm {
		t, _ := parseTarget(p.URL.Render(racetest.RoundValues{Key: "k", UUID: "u"})) // Validate parsed it
		pool, err := newConnPool(t, p.WarmURL)
		if err != nil {
			return nil, err
		}
		p.pool = pool
		defer func() {
			pool.close()
			if n := pool.note(); n != "" {
				res.Notes = append(res.Notes, n)
			}
		}()
	}
	if p.Effect != nil {
		res.Oracle = p.Effect.Evidence()
	}
	show := &preRunShow{res: res, rounds: p.Rounds}
	show.progress, _ = p.Progress.(PreRunProgress)
	sync, why, warn, err := chooseSync(ctx, &p, show)
	if err != nil {
		return nil, err
	}
	if p.pinChosen && !p.OneCPU {
		pin()
	}
	res.Sync, res.SyncReason, res.Split = sync, why, p.Split
	res.Warnings = append(res.Warnings, warn...)
	if p.Progress != nil {
		p.Progress.Start(res, p.Rounds)
	}
	identical, _ := p.roundsIdentical() // Validate built both already
	switch {
	case p.NoCalibrate:
		res.Calibration = racetest.SkippedCalibration(p.Marker)
	case p.SameKey && identical:
		// The calibration needs a key of its own; here it would finish
		// round 1's key before round 1 raced it.
		res.Calibration = racetest.SkippedCalibration(p.Marker)
		res.Calibration.Sentence = "not run: with --same-key and a request that is the same for every key, the calibration's request would be round 1's"
	}
	run := &httpRun{p: &p, sync: sync, oracle: res.Oracle, counts: map[int]roundCount{}}
	if res.Calibration == nil {
		var rc roundCount
		if res.Calibration, rc, err = calibrate(ctx, &p, sync); err != nil {
			return nil, err
		}
		run.counts[calibrationIndex] = rc
	}
	run.cal = res.Calibration
	if err := racetest.RunRounds(ctx, run, res, p.Rounds, p.Deadline, p.Progress); err != nil {
		return nil, err
	}
	if p.Effect != nil {
		if err := run.recount(ctx, res); err != nil {
			if res.Verdict.Status != racetest.Broken {
				return nil, err
			}
			res.Warnings = append(res.Warnings, err.Error())
		}
	}
	return res, nil
}

// calibrationIndex keys the calibration's count in httpRun.counts.
const calibrationIndex = 0

// recount reads the oracle again for every round (and the calibration)
// in which a request failed or timed out, once --timeout has passed since
// the last of them ended: the probe gave up on such a request, but the
// server may still have performed its effect after the count was read (a
// late duplicate). So is every round with a request accepted for later (in
// flight), whose work may land any time after its answer. A count that rose decides
// its round, and the run is judged again. When the run's deadline comes
// first, the counts read after --settle stand and a warning says so.
func (r *httpRun) recount(ctx context.Context, res *racetest.Result) error {
	var pending []int
	var last time.Time // when the last such round ended
	for i, rc := range r.counts {
		if rc.unknown || rc.inFlight {
			pending = append(pending, i)
			if rc.ended.After(last) {
				last = rc.ended
			}
		}
	}
	if len(pending) == 0 {
		return nil
	}
	slices.Sort(pending)
	if !sleepCtx(ctx, time.Until(last.Add(r.p.Timeout))) {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the run's deadline passed before the rounds with a failed, timed-out or accepted request could be counted again; "+
			"their counts were read --settle (%s) after they ended, and a late effect would have been missed", r.p.Settle))
		return nil
	}
	rose := 0
	for _, i := range pending {
		rc := r.counts[i]
		if i == calibrationIndex {
			cal := res.Calibration
			after, err := r.p.countEffects(ctx, cal.Values, "when the calibration was counted again")
			if err != nil {
				return err
			}
			if n := int(after - rc.before); cal.Effects != nil && n > *cal.Effects {
				cal.SetEffects(n)
				rose++
			}
			continue
		}
		round := res.Round(i)
		if round == nil || round.Effects == nil {
			continue
		}
		after, err := r.p.countEffects(ctx, round.Values, fmt.Sprintf("when round %d was counted again", i))
		if err != nil {
			return err
		}
		if r.p.SameKey {
			// Every round counts one key: what the later rounds counted
			// is theirs.
			for k := range res.Rounds {
				if later := &res.Rounds[k]; later.Index > i && later.Effects != nil {
					after -= int64(*later.Effects)
				}
			}
		}
		if n := int(after - rc.before); n > *round.Effects {
			was := *round.Effects
			round.Effects = &n
			round.Resolve(r.cal, r.oracle)
			round.Evidence += fmt.Sprintf(" (%d when read --settle after the round: a request that failed, timed out or was accepted for later performed the effect later)", was)
			rose++
		}
	}
	res.Notes = append(res.Notes, fmt.Sprintf("%s a request that failed, timed out or was accepted for later; the oracle counted again --timeout (%s) after the last of them ended, and %d count(s) rose",
		humanize.Count(len(pending), "round had", "rounds had"), r.p.Timeout, rose))
	res.Verdict = racetest.Judge(res.Rounds, res.Calibration)
	return nil
}

// httpRun is the HTTP probe's Prober: the settings, the protocol chosen
// and the evidence gathered before the first round.
type httpRun struct {
	p      *Probe
	sync   string
	cal    *racetest.Calibration
	oracle string
	// counts are the oracle's readings of each round (by index), kept for
	// the recount of rounds whose requests did not all answer.
	counts map[int]roundCount
}

// Round fires one burst and resolves its successes on the evidence.
func (r *httpRun) Round(ctx context.Context, i int) (racetest.Round, []string, error) {
	round, rc, warn, err := runRound(ctx, r.p, r.sync, i)
	if err == nil {
		round.Resolve(r.cal, r.oracle)
		if r.counts == nil {
			r.counts = map[int]roundCount{}
		}
		r.counts[i] = rc
	}
	return round, warn, err
}

// roundCount is what the oracle read around one round.
type roundCount struct {
	before int64
	// unknown is set when a request of the round failed or timed out: it
	// may have performed the effect after the count was read.
	unknown bool
	// inFlight is set when a request was accepted for later: its work may
	// land after the count too.
	inFlight bool
	// ended is when the round's last request settled.
	ended time.Time
}

// runRound renders the request, counts the effect around the burst and
// classifies what came back. With an oracle the count is read once every
// request has settled (answered, failed or timed out) and --settle more
// has passed, for effects that land after their answer.
func runRound(ctx context.Context, p *Probe, sync string, i int) (racetest.Round, roundCount, []string, error) {
	var rc roundCount
	vals := p.values(p.RunID, i)
	if p.SameKey {
		vals = p.values(p.RunID, 1) // one key, hence one request, for every round
	}
	req, err := renderRequest(p, vals)
	if err != nil {
		return racetest.Round{}, rc, nil, err
	}
	phase := fmt.Sprintf("round %d", i)
	if i > p.Rounds {
		phase = fmt.Sprintf("--sync auto's pre-run round ({{round}} %d)", i)
	}
	if p.Effect != nil {
		if rc.before, err = p.countEffects(ctx, vals, "before "+phase); err != nil {
			return racetest.Round{}, rc, nil, err
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
		return racetest.Round{}, rc, warn, err
	}
	rc.ended = time.Now()
	round := racetest.Round{Index: i, Key: vals.Key, Values: vals, ReleaseSpread: b.spread, Start: firstOf(b.released), Retry: p.SameKey && i > 1}
	for k, r := range b.responses {
		replayed := p.Marker.Marks(r.Header)
		kind, msg := p.Classifier.Classify(r, replayed)
		o := racetest.Outcome{Request: k + 1, Kind: kind, Status: r.Status, Err: msg, Replayed: replayed, Elapsed: b.elapsed[k], Body: r.Body}
		o.Arrival = serverArrival(r.Header)
		if k < len(b.released) && !b.released[k].IsZero() {
			o.Released = b.released[k].Sub(round.Start)
		}
		rc.unknown = rc.unknown || kind == racetest.Error
		rc.inFlight = rc.inFlight || kind == racetest.InFlight
		round.Outcomes = append(round.Outcomes, o)
	}
	round.ArrivalSpread = arrivalSpread(round.Outcomes)
	if p.pool != nil && sync != SyncH2 {
		p.pool.raced = round.Count(racetest.Win) > 1
		// The connection this round retires is replaced now, not just
		// before the next release (nothing is replaced after the last).
		if i != p.Rounds && !runOver(ctx) {
			p.pool.refill(ctx, p, req.target, p.N)
		}
	}
	// A round the run's deadline cut before every request got its answer
	// is left out (a request it cut failed for the deadline, not for the
	// target), and the run says it stopped early.
	if runOver(ctx) && anyFailed(b.responses) {
		return racetest.Round{}, rc, warn, fmt.Errorf("%w: round %d was cut short", racetest.ErrDeadline, i)
	}
	if p.Effect != nil {
		sleepCtx(ctx, p.Settle)
		after, err := p.countEffects(ctx, vals, "after "+phase)
		if err != nil {
			return racetest.Round{}, rc, warn, err
		}
		n := int(after - rc.before)
		round.Effects = &n
	}
	// A round in which no request got any answer says nothing about the
	// gate, only that the target stopped answering; unless the oracle
	// already counted two effects, which is the gate broken.
	if stalled(b.responses) && !runOver(ctx) && (round.Effects == nil || *round.Effects <= 1) {
		return racetest.Round{}, rc, warn, &racetest.StopError{Phase: phase, Elapsed: time.Since(round.Start),
			Err: fmt.Errorf("no request got an answer within --timeout %s: the target stopped answering", p.Timeout)}
	}
	round.TooWide = p.Window > 0 && round.Spread() > p.Window
	return round, rc, warn, nil
}

// runOver reports whether the run's deadline has passed: what failed then
// was cut short by --deadline, not left unanswered by the target.
func runOver(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	return ctx.Err() != nil || ok && !time.Now().Before(dl)
}

// anyFailed reports whether some request got no response.
func anyFailed(rs []racetest.Response) bool {
	for _, r := range rs {
		if r.Err != nil {
			return true
		}
	}
	return false
}

// stalled reports whether every response is a timeout before a single
// byte of status: the target answered nothing at all.
func stalled(rs []racetest.Response) bool {
	for _, r := range rs {
		if r.Err == nil || r.Status != 0 || !racetest.IsTimeout(r.Err) {
			return false
		}
	}
	return len(rs) > 0
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
