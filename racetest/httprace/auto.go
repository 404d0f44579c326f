package httprace

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
	"golang.org/x/net/http2"
)

// serverSeen is what --sync auto can see of a server before the first
// round, without sending it a request of the race: the protocol TLS
// agreed on (ALPN), whether it speaks HTTP/2 and the SETTINGS it sends
// first, and the Server header of its answer to OPTIONS *.
type serverSeen struct {
	tls  bool
	alpn string // what ALPN agreed when offered h2 and http/1.1; "" in cleartext
	// h2 is set when the server speaks HTTP/2: ALPN h2, or in cleartext an
	// answer to the HTTP/2 preface (h2c with prior knowledge).
	h2       bool
	settings []http2.Setting // the server's first SETTINGS, in its order
	// h1 is set when the server answered OPTIONS * over HTTP/1.1; server
	// is its Server header ("" when it sends none).
	h1     bool
	server string
}

// setting returns the value the server sent for id.
func (s serverSeen) setting(id http2.SettingID) (uint32, bool) {
	for _, st := range s.settings {
		if st.ID == id {
			return st.Val, true
		}
	}
	return 0, false
}

// settingsText is the SETTINGS as people read them: "MAX_CONCURRENT_STREAMS=250 ...".
func (s serverSeen) settingsText() string {
	parts := make([]string, len(s.settings))
	for i, st := range s.settings {
		parts[i] = fmt.Sprintf("%s=%d", strings.TrimPrefix(st.ID.String(), "SETTINGS_"), st.Val)
	}
	if len(parts) == 0 {
		return "(empty)"
	}
	return strings.Join(parts, " ")
}

// Server kinds the table places.
const (
	kindGo      = "Go net/http"
	kindNode    = "Node.js http2"
	kindNginx   = "nginx"
	kindUnknown = ""
)

// autoRow is one row of the --sync auto table (docs/race-sync.md): how a
// kind of server is recognised, and the mode that measures best for it.
type autoRow struct {
	kind  string
	match func(s serverSeen) (string, bool) // what gave it away
	sync  string
	why   string
}

// autoTable is the documented table, first match wins. Go's and Node's
// servers send no Server header by default; their first SETTINGS tell
// them apart.
var autoTable = []autoRow{
	{kind: kindNginx, sync: SyncH2, match: func(s serverSeen) (string, bool) {
		return "Server: " + s.server, s.h2 && strings.HasPrefix(strings.ToLower(s.server), "nginx")
	}, why: "nginx reads the single packet in one read and passes every stream on to its upstream at once"},
	{kind: kindGo, sync: SyncH2, match: func(s serverSeen) (string, bool) {
		// Go's server (net/http and x/net/http2) announces
		// MAX_CONCURRENT_STREAMS 250 and a 1 MiB MAX_FRAME_SIZE; nghttp2
		// (Node) neither.
		streams, ok1 := s.setting(http2.SettingMaxConcurrentStreams)
		frame, ok2 := s.setting(http2.SettingMaxFrameSize)
		return "SETTINGS MAX_CONCURRENT_STREAMS=250 MAX_FRAME_SIZE=1048576 and no Server header", s.h2 && s.server == "" && ok1 && ok2 && streams == 250 && frame == 1<<20
	}, why: "measured against Go's server over TLS, the streams of one packet reach their handlers closer together than HTTP/1.1 connections released at once (docs/race-sync.md)"},
	{kind: kindNode, sync: SyncH2, match: func(s serverSeen) (string, bool) {
		// Node's http2 module (nghttp2 as Node sets it up) sends an empty
		// first SETTINGS frame: every value at its default.
		return "an empty SETTINGS frame and no Server header", s.h2 && s.server == "" && len(s.settings) == 0
	}, why: "Node's event loop dispatches every stream of one read in the same turn, back to back"},
}

// autoDecision is what --sync auto chose and why.
type autoDecision struct {
	sync   string
	reason string
	seen   serverSeen
	placed bool // the table placed the server
}

// decide applies the table to what was seen. Without a match it falls back
// to the default: HTTP/2 when TLS agreed to it by ALPN or the server speaks
// only HTTP/2, HTTP/1.1 otherwise.
func decide(s serverSeen) autoDecision {
	switch {
	case !s.h1 && !s.h2 && s.tls && s.alpn == "h2":
		return autoDecision{sync: SyncH2, seen: s, placed: true, reason: "the server agreed to HTTP/2 by ALPN but showed nothing else; the default over TLS is the HTTP/2 single packet"}
	case !s.h1 && !s.h2:
		return autoDecision{sync: SyncH1, seen: s, placed: true, reason: "the server answered neither OPTIONS * nor the HTTP/2 preface; the default is HTTP/1.1"}
	case !s.h2 && s.tls:
		return autoDecision{sync: SyncH1, seen: s, placed: true, reason: "the server does not offer HTTP/2 by ALPN, so HTTP/1.1 is the only release"}
	case !s.h2:
		return autoDecision{sync: SyncH1, seen: s, placed: true, reason: "cleartext HTTP/1.1 (cleartext HTTP/2 is not tried on a server that answers HTTP/1.1, which might take the preface for a request; --sync h2 uses it)"}
	}
	if !s.h1 {
		return autoDecision{sync: SyncH2, seen: s, placed: true, reason: "the server speaks only HTTP/2"}
	}
	for _, row := range autoTable {
		if by, ok := row.match(s); ok {
			return autoDecision{sync: row.sync, seen: s, placed: true,
				reason: fmt.Sprintf("%s by %s: %s", row.kind, by, row.why)}
		}
	}
	d := autoDecision{sync: SyncH1, seen: s}
	server := "no Server header"
	if s.server != "" {
		server = "Server: " + s.server
	}
	what := fmt.Sprintf("a server the table does not place (%s, SETTINGS %s)", server, s.settingsText())
	if s.tls && s.alpn == "h2" {
		d.sync = SyncH2
		d.reason = what + "; the default over TLS with ALPN h2 is the HTTP/2 single packet"
	} else {
		d.reason = what + "; the default in cleartext is HTTP/1.1"
	}
	return d
}

// see looks at the server without sending a request to a route of the
// application. Over TLS: ALPN offered h2 and http/1.1 and, when it agreed
// to h2, the SETTINGS it sends; then OPTIONS * over HTTP/1.1 for its
// Server header. In cleartext: OPTIONS * first; the HTTP/2 preface only
// when the server did not answer it as HTTP/1.1 (a server that does not
// speak cleartext HTTP/2 would take the preface for a request to its
// handler, as Go's does). Nothing it learns is an error: what it could
// not see is left unset.
func see(ctx context.Context, p *Probe, t target) (serverSeen, error) {
	s := serverSeen{tls: t.tls}
	wait := min(maxSee, p.Timeout)
	if t.tls {
		c, err := dial(ctx, p, t, []string{"h2", "http/1.1"})
		if err != nil {
			return s, err
		}
		s.alpn = c.(*tls.Conn).ConnectionState().NegotiatedProtocol
		if s.alpn == "h2" {
			s.h2, s.settings = peekSettings(c, wait)
		}
		c.Close()
		// A server that chose HTTP/2 may still speak HTTP/1.1 when
		// offered nothing else.
		if c, err = dial(ctx, p, t, []string{"http/1.1"}); err == nil {
			if c.(*tls.Conn).ConnectionState().NegotiatedProtocol != "h2" {
				s.h1, s.server, _ = optionsStar(c, t, wait)
			}
			c.Close()
		}
		return s, nil
	}
	c, err := dial(ctx, p, t, nil)
	if err != nil {
		return s, err
	}
	var timedOut bool
	s.h1, s.server, timedOut = optionsStar(c, t, wait)
	c.Close()
	if s.h1 || timedOut {
		return s, nil
	}
	if c, err = dial(ctx, p, t, nil); err == nil {
		s.h2, s.settings = peekSettings(c, wait)
		c.Close()
	}
	return s, nil
}

// maxSee bounds each look (and so does --timeout).
const maxSee = 2 * time.Second

// peekSettings sends the HTTP/2 preface and an empty SETTINGS frame and
// reads the server's first frame: SETTINGS when it speaks HTTP/2.
func peekSettings(c net.Conn, wait time.Duration) (bool, []http2.Setting) {
	_ = c.SetDeadline(time.Now().Add(wait))
	if _, err := c.Write([]byte(http2.ClientPreface)); err != nil {
		return false, nil
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(); err != nil {
		return false, nil
	}
	f, err := fr.ReadFrame()
	if err != nil {
		return false, nil
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok || sf.IsAck() {
		return false, nil
	}
	var settings []http2.Setting
	_ = sf.ForeachSetting(func(s http2.Setting) error {
		settings = append(settings, s)
		return nil
	})
	_ = fr.WriteGoAway(0, http2.ErrCodeNo, nil)
	return true, settings
}

// optionsStar asks the server about itself with OPTIONS * and returns
// whether it answered over HTTP/1.1, its Server header, and whether it
// said nothing at all before the wait ended.
func optionsStar(c net.Conn, t target, wait time.Duration) (bool, string, bool) {
	_ = c.SetDeadline(time.Now().Add(wait))
	req := "OPTIONS * HTTP/1.1\r\nHost: " + t.host + "\r\nUser-Agent: idemcheck-race\r\nConnection: close\r\n\r\n"
	if _, err := c.Write([]byte(req)); err != nil {
		return false, "", false
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		var ne net.Error
		return false, "", errors.As(err, &ne) && ne.Timeout()
	}
	resp.Body.Close()
	return true, resp.Header.Get("Server"), false
}

// chooseSync resolves --sync auto, and with it a --release and a --one-cpu
// left to auto (p.Release, p.pinChosen). With an oracle, a short pre-run
// races each candidate (the modes the server offers, the release methods,
// the probe pinned to one CPU or not) and keeps the one whose rounds
// counted the most doubled effects. Without one, the table in
// docs/race-sync.md places the server; a server it cannot place gets a
// pre-run measured by Server-Timing arrivals when it sends them, and the
// default mode otherwise; then, in a run of winPreRunMin rounds or more
// with --split auto, a pre-run measured by wins chooses the HTTP/1.1
// split (and h1 or h2 where both are offered). The sentence says which
// and why.
//
// show is told of the pre-run, when one runs: its begin before the first
// request, its status as it goes.
func chooseSync(ctx context.Context, p *Probe, show *preRunShow) (string, string, []string, error) {
	t, err := parseTarget(p.URL.Render(racetest.RoundValues{Key: "k", UUID: "u"}))
	if err != nil {
		return "", "", nil, err
	}
	if p.Sync != SyncAuto {
		p.resolveRelease(p.Sync)
		return p.Sync, "", nil, nil
	}
	seen, err := see(ctx, p, t)
	if err != nil {
		return "", "", nil, err
	}
	d := decide(seen)
	// With one key for every round, a pre-run would spend it.
	if p.Effect != nil && !p.SameKey {
		c, why, err := preRunMeasure(ctx, p, d, p.candidates(d), show)
		if err != nil {
			return "", "", nil, err
		}
		p.choose(c)
		return c.sync, "auto chose " + c.String() + ": " + why, nil, nil
	}
	if !d.placed {
		// A server the table does not place: the mode by Server-Timing
		// arrivals where it sends them, as before; the split is then
		// measured by wins like a placed server's.
		sync, why, err := preRun(ctx, p, d, show)
		if err != nil {
			return "", "", nil, err
		}
		d.sync, d.reason = sync, why
		if sync == SyncH2 {
			p.resolveRelease(sync)
			return sync, "auto chose " + sync + ": " + why, nil, nil
		}
	}
	cs := p.candidatesByWins(d)
	if !d.placed {
		cs = slices.DeleteFunc(cs, func(c candidate) bool { return c.sync != SyncH1 })
	}
	if len(cs) > 1 && !p.SameKey && p.Rounds >= winPreRunMin {
		c, why, err := preRunMeasure(ctx, p, d, cs, show)
		if err != nil {
			return "", "", nil, err
		}
		p.choose(c)
		return c.sync, "auto chose " + c.String() + ": " + why, nil, nil
	}
	p.resolveRelease(d.sync)
	return d.sync, "auto chose " + d.sync + ": " + d.reason, nil, nil
}

// choose takes the candidate the pre-run chose: its release, split and
// pin; an HTTP/2 candidate leaves the HTTP/1.1 settings to their defaults.
func (p *Probe) choose(c candidate) {
	p.pinChosen = c.pin
	if c.sync == SyncH2 {
		p.resolveRelease(c.sync)
		return
	}
	p.Release, p.Split = c.release, c.split
}

// releaseOpen and pinOpen report whether --release and --one-cpu were left
// for auto to choose.
func (p *Probe) releaseOpen() bool { return p.Release == "" || p.Release == ReleaseAuto }
func (p *Probe) splitOpen() bool   { return p.Split == SplitAuto }
func (p *Probe) pinOpen() bool     { return !p.OneCPU && p.TryOneCPU && p.local }

// resolveRelease settles a release left to auto without measuring:
// DefaultRelease.
func (p *Probe) resolveRelease(sync string) {
	if p.releaseOpen() {
		p.Release = DefaultRelease
	}
	if p.splitOpen() {
		p.Split = SplitHeaders
		if sync == SyncH1 {
			p.Split = DefaultH1Split
		}
	}
}

// DefaultH1Split is the HTTP/1.1 split when no pre-run measures it:
// none, the whole request at the release on a warm connection. Against
// the bench's own targets it caught 3 to 8 points more than the withheld
// head at spin windows; against Go's server the two swapped places
// between sittings, and Django's servers favour the head withheld
// (docs/race-sync.md, "Real servers"), which a pre-run finds.
const DefaultH1Split = SplitNone

// DefaultRelease is the HTTP/1.1 release when no oracle measures the
// methods: wake, which did at least as well as spin, parked and thread on
// one CPU and on every CPU against the Go target whose handler does not
// block (docs/race-sync.md).
const DefaultRelease = ReleaseWake

// candidate is one way of racing the pre-run tries.
type candidate struct {
	sync    string
	release string // HTTP/1.1 only
	split   string // HTTP/1.1 only
	pin     bool
}

func (c candidate) String() string {
	s := c.sync
	if c.sync == SyncH1 {
		s += " with the " + c.release + " release"
		if c.split != "" {
			s += ", split " + c.split
		}
	}
	if c.pin {
		s += ", the probe on one CPU"
	}
	return s
}

// candidates are what the pre-run tries, the default first (it wins a
// tie): the modes the server offers, the release methods when --release
// is auto, and the probe pinned to one CPU when --one-cpu is auto and the
// target is on this machine.
func (p *Probe) candidates(d autoDecision) []candidate {
	syncs := []string{d.sync}
	other := SyncH2
	if d.sync == SyncH2 {
		other = SyncH1
	}
	offered := d.seen.h1 || !d.seen.h2 && !d.seen.tls
	if other == SyncH2 {
		offered = d.seen.h2 || d.seen.tls && d.seen.alpn == "h2"
	}
	if offered {
		syncs = append(syncs, other)
	}
	pins := []bool{p.OneCPU && p.local}
	if p.pinOpen() {
		pins = []bool{false, true}
	}
	var cs []candidate
	for _, pin := range pins {
		for _, sync := range syncs {
			if sync == SyncH2 {
				cs = append(cs, candidate{sync: sync, pin: pin})
				continue
			}
			for _, split := range p.h1Splits() {
				releases := []string{p.Release}
				switch {
				case !p.releaseOpen():
				case pin || split == SplitNone:
					releases = []string{DefaultRelease}
				default:
					releases = []string{DefaultRelease, ReleaseSpin, ReleaseParked}
				}
				for _, r := range releases {
					cs = append(cs, candidate{sync: sync, release: r, split: split, pin: pin})
				}
			}
		}
	}
	return cs
}

// h1Splits are the HTTP/1.1 splits a pre-run tries: the default first,
// then the withheld head, when --split is auto; the one given otherwise.
func (p *Probe) h1Splits() []string {
	if p.splitOpen() {
		return []string{DefaultH1Split, SplitHeaders}
	}
	return []string{p.Split}
}

// candidatesByWins are what the pre-run tries without an oracle: the
// modes the server offers, each HTTP/1.1 split when --split is auto, with
// the default release and the probe on every CPU (without counted effects
// the release methods and the pin measured too close to tell apart).
func (p *Probe) candidatesByWins(d autoDecision) []candidate {
	var cs []candidate
	for _, c := range p.candidates(d) {
		if c.pin || c.sync == SyncH1 && c.release != p.defaultRelease() {
			continue
		}
		cs = append(cs, c)
	}
	return cs
}

func (p *Probe) defaultRelease() string {
	if p.releaseOpen() {
		return DefaultRelease
	}
	return p.Release
}

// oracleRounds is how many rounds each candidate gets in the pre-run
// measured by the oracle.
const oracleRounds = 6

// winPreRunMin is the shortest run that gets a pre-run measured by wins:
// from 60 rounds on, its winRounds per candidate are at most a fifth of
// the run for two candidates. A shorter run takes the defaults (split
// none for HTTP/1.1) rather than spend more rounds choosing than racing.
const winPreRunMin = 60

// winRounds is how many rounds each candidate gets in the pre-run measured
// by wins, for a run of rounds rounds: a tenth of the run, from 6 to 30.
// Wins resolve less than counted effects do, and the splits they choose
// between differ by 10 to 30 points (docs/race-sync.md).
func winRounds(rounds int) int { return min(30, max(6, rounds/10)) }

// preRunMargin is how many more rounds than the default a candidate must
// catch in the pre-run to be chosen instead, at least; a tenth of the
// rounds per candidate when that is more.
const preRunMargin = 2

// preRunMeasure races each candidate for a few rounds (keys of their own,
// idemcheck-RUN-pre-K-R, and {{round}} values R after the run's: preRound)
// and keeps the one that caught the race most often: by the oracle's
// count (rounds with a doubled effect) when one counts, else by the wins
// the responses show (each round scores its wins beyond the first, as
// classified before any calibration). The first in the list wins a tie. A
// candidate that cannot race the target is left out.
func preRunMeasure(ctx context.Context, p *Probe, d autoDecision, cs []candidate, show *preRunShow) (candidate, string, error) {
	// The pre-run takes at most a quarter of what is left of --deadline,
	// so that a run with a tight deadline still races.
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/4))
		defer cancel()
	}
	counted := p.Effect != nil
	rounds := oracleRounds
	if !counted {
		rounds = winRounds(p.Rounds)
	}
	caught := make([]int, len(cs))
	ran := make([]bool, len(cs))
	var skipped []string
	st := PreRunStatus{Budget: len(cs) * rounds, Candidates: len(cs), Counted: counted}
	show.begin()
	for k, c := range cs {
		st.Candidate, st.Name = k+1, c.String()
		show.status(st)
		q := *p
		q.RunID = fmt.Sprintf("%s-pre-%d", p.RunID, k+1)
		q.choose(c)
		restore := func() {}
		if c.pin && !p.OneCPU {
			_, r, err := pinToOneCPU()
			if err != nil {
				skipped = append(skipped, fmt.Sprintf("%s (%v)", c, err))
				continue
			}
			restore = r
		}
		var err error
		for i := 1; i <= rounds && err == nil; i++ {
			var r racetest.Round
			r, _, _, err = runRound(ctx, &q, c.sync, preRound(p, k*rounds+i))
			if err != nil {
				break
			}
			switch {
			case counted && r.Effects != nil && *r.Effects > 1:
				caught[k]++
				st.Doubled++
			case !counted && r.Count(racetest.Win) > 1:
				caught[k] += r.Count(racetest.Win) - 1
				st.Won++
			}
			st.Done++
			show.status(st)
		}
		restore()
		if err != nil && runOver(ctx) {
			// The run's deadline passed: the rounds will say so.
			skipped = append(skipped, fmt.Sprintf("%s and the rest (the pre-run's quarter of --deadline passed)", c))
			break
		}
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s (%v)", c, err))
			continue
		}
		ran[k] = true
	}
	best := -1
	var figures []string
	for k, c := range cs {
		if !ran[k] {
			continue
		}
		figures = append(figures, fmt.Sprintf("%d with %s", caught[k], c))
		if best < 0 || caught[k] > caught[best] {
			best = k
		}
	}
	// The default (the first) stands unless another caught at least the
	// margin more: a round or two is noise at the low rates where the
	// methods differ least (docs/race-sync.md).
	margin := max(preRunMargin, rounds/10)
	if best > 0 && ran[0] && caught[best] < caught[0]+margin {
		best = 0
	}
	if best < 0 {
		if runOver(ctx) {
			return cs[0], d.reason + "; the pre-run's quarter of --deadline passed before it measured a candidate, so the default stands", nil
		}
		return candidate{}, "", fmt.Errorf("the pre-run could race the target in none of its modes: %s", strings.Join(skipped, "; "))
	}
	why := fmt.Sprintf("a pre-run of %d rounds per candidate caught the race (by the oracle's count) in %s", rounds, strings.Join(figures, ", "))
	if !counted {
		why = fmt.Sprintf("a pre-run of %d rounds per candidate, with no oracle, counted wins beyond the first of each round (as the responses show them, before any calibration): %s", rounds, strings.Join(figures, ", "))
	}
	if len(skipped) > 0 {
		why += "; not raced: " + strings.Join(skipped, "; ")
	}
	if d.reason != "" {
		why = d.reason + "; " + why
	}
	return cs[best], why, nil
}

// preRounds is how many rounds each mode gets in the pre-run measured by
// Server-Timing arrivals.
const preRounds = 5

// preRun races the target for a few rounds in each mode the server offers
// (keys of their own, idemcheck-RUN-pre-MODE-R, and {{round}} values R
// after the run's: preRound) and keeps the one with the narrower median
// arrival spread from Server-Timing. When it cannot be measured, it keeps
// the default and says so.
func preRun(ctx context.Context, p *Probe, d autoDecision, show *preRunShow) (string, string, error) {
	modes := []string{SyncH1, SyncH2}
	spreads := map[string][]time.Duration{}
	st := PreRunStatus{Budget: len(modes) * preRounds, Candidates: len(modes)}
	show.begin()
	for m, mode := range modes {
		st.Candidate, st.Name = m+1, mode
		show.status(st)
		q := *p
		q.RunID = p.RunID + "-pre-" + mode
		q.resolveRelease(mode)
		for i := 1; i <= preRounds; i++ {
			r, _, _, err := runRound(ctx, &q, mode, preRound(p, m*preRounds+i))
			if err != nil {
				return d.sync, d.reason + fmt.Sprintf("; the pre-run could not race it with %s (%v), so the default stands", mode, err), nil
			}
			st.Done++
			show.status(st)
			if r.ArrivalSpread != nil {
				spreads[mode] = append(spreads[mode], *r.ArrivalSpread)
			}
			if i == 1 && r.ArrivalSpread == nil {
				return d.sync, d.reason + "; it sends no Server-Timing arrival and no oracle counts its effects, so no pre-run could measure it and the default stands", nil
			}
		}
	}
	h1, h2 := spreads[SyncH1], spreads[SyncH2]
	if len(h1) == preRounds && len(h2) == preRounds {
		m1, m2 := medianOf(h1), medianOf(h2)
		best := SyncH1
		if m2 < m1 {
			best = SyncH2
		}
		return best, fmt.Sprintf("%s; a pre-run of %d rounds per mode measured a median arrival spread (Server-Timing) of %s with h1 and %s with h2",
			d.reason, preRounds, m1, m2), nil
	}
	return d.sync, d.reason + fmt.Sprintf("; a pre-run of %d rounds per mode could not tell the modes apart, so the default stands", preRounds), nil
}

// preRound is the round number, hence the {{round}} value, of the pre-run's
// j-th round (from 1, counted across its candidates): the numbers after
// the run's last round, p.Rounds+1 on, so that a target keyed by {{round}}
// never sees a pre-run round's value again in a round of the run, nor in
// another candidate's (docs/race-sync.md).
func preRound(p *Probe, j int) int { return p.Rounds + j }

// PreRunStatus is how far --sync auto's pre-run has got.
type PreRunStatus struct {
	// Done is the pre-run's rounds raced so far, of Budget planned (every
	// candidate's); a candidate that cannot race, or the pre-run's share
	// of the deadline running out, leaves some unraced.
	Done, Budget int
	// Candidate is the one racing, from 1, of Candidates; Name says what
	// it is ("h1 with the spin release, the probe on one CPU").
	Candidate, Candidates int
	Name                  string
	// Counted is set when an oracle counts the pre-run's effects; Doubled
	// is then how many of its rounds so far counted more than one.
	// Without an oracle, Won is how many of its rounds so far had two wins
	// or more, as the responses show them.
	Counted bool
	Doubled int
	Won     int
}

// PreRunProgress is a racetest.Progress (Probe.Progress) that is also
// told of --sync auto's pre-run, which races the target before the sync is
// chosen, hence before Start.
type PreRunProgress interface {
	racetest.Progress
	// PreRun is called once, before the pre-run's first request, with the
	// result as far as the header line states it (WriteTextHeaderLine): its
	// Sync is still auto and its SyncReason empty until Start. rounds is
	// how many rounds the run plans after the pre-run.
	PreRun(res *racetest.Result, rounds int)
	// PreRound is called when a candidate starts and after each of the
	// pre-run's rounds, on the goroutine that runs them.
	PreRound(s PreRunStatus)
}

// preRunShow passes the pre-run on to a PreRunProgress; nil, or with
// nothing to tell, it does nothing.
type preRunShow struct {
	progress PreRunProgress
	res      *racetest.Result
	rounds   int
	begun    bool
}

func (s *preRunShow) begin() {
	if s == nil || s.progress == nil || s.begun {
		return
	}
	s.begun = true
	s.progress.PreRun(s.res, s.rounds)
}

func (s *preRunShow) status(st PreRunStatus) {
	if s == nil || s.progress == nil {
		return
	}
	s.progress.PreRound(st)
}

// medianOf is the median of ds (which it sorts).
func medianOf(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
