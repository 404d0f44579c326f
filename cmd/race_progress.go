package cmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/idemcheck/idemcheck/internal/humanize"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/httprace"
)

// progressEvery is how often, at most, the progress line is redrawn.
const progressEvery = 100 * time.Millisecond

// defaultErrWidth is the progress line's bound when stderr's width is not
// known.
const defaultErrWidth = 80

// raceReport shows a race while it runs and writes its report when it
// ends (docs/cli.md, "Race flags"). In text, the header line goes to
// stdout before the first round and the rest of the report after the last;
// JSON is one document at the end. When stderr is a terminal and --quiet
// was not given, a line on stderr, rewritten in place, counts the rounds
// and their outcomes so far; it is cleared before the report goes on.
// race http's --sync auto pre-run, when one runs, comes first: the header
// line goes out before it (sync auto), the live line shows it, and the
// sync line naming the choice follows it.
//
// It is the racetest.Progress of the run, and race http's
// httprace.PreRunProgress.
type raceReport struct {
	s *Streams
	o raceOutput
	// header is set once the header line was written (or failed to be:
	// headerErr); syncLine, when it was written before a pre-run and the
	// sync line is still to come.
	header    bool
	syncLine  bool
	headerErr error
	live      *progressLine
}

func newRaceReport(s *Streams, o raceOutput) *raceReport {
	r := &raceReport{s: s, o: o}
	if s.ErrTerminal && !o.quiet {
		width := s.ErrWidth
		if width <= 0 {
			width = defaultErrWidth
		}
		r.live = &progressLine{w: s.Err, width: width}
	}
	return r
}

// PreRun writes the header line (text only) before --sync auto's pre-run,
// with the sync still auto; Start writes the sync line.
func (r *raceReport) PreRun(res *racetest.Result, rounds int) {
	if r.o.format == "text" && !r.header {
		r.header, r.syncLine = true, true
		r.headerErr = racetest.WriteTextHeaderLine(r.s.Out, res, rounds)
	}
}

// PreRound shows how far the pre-run has got on the progress line.
func (r *raceReport) PreRound(st httprace.PreRunStatus) {
	if r.live != nil {
		r.live.preRound(st)
	}
}

// Start writes the header (text only), or the sync line when the header
// line went out before a pre-run, and starts counting the rounds on the
// progress line.
func (r *raceReport) Start(res *racetest.Result, rounds int) {
	if r.live != nil {
		// The pre-run's line is erased before stdout goes on, which may
		// be the same terminal.
		r.live.stop()
	}
	if r.o.format == "text" {
		switch {
		case !r.header:
			r.header = true
			r.headerErr = racetest.WriteTextHeader(r.s.Out, res, rounds)
		case r.syncLine:
			r.syncLine = false
			if r.headerErr == nil {
				r.headerErr = racetest.WriteTextSyncLine(r.s.Out, res)
			}
		}
	}
	if r.live != nil {
		r.live.start(rounds)
	}
}

// Round counts a finished round on the progress line.
func (r *raceReport) Round(rd *racetest.Round) {
	if r.live != nil {
		r.live.round(rd)
	}
}

// stop clears the progress line, if one is shown; it may be called more
// than once.
func (r *raceReport) stop() {
	if r.live != nil {
		r.live.stop()
	}
}

// write clears the progress line, prints the rest of the report (all of it
// when the header was never written) and turns the verdict into the exit
// status.
func (r *raceReport) write(res *racetest.Result) error {
	r.stop()
	err := r.headerErr
	if err == nil {
		switch {
		case r.o.format == "json":
			err = racetest.WriteJSON(r.s.Out, res, toolVersion())
		case r.header:
			err = racetest.WriteColorTextBody(r.s.Out, res, r.o.verbose, r.o.colored)
		default:
			err = racetest.WriteColorText(r.s.Out, res, r.o.verbose, r.o.colored)
		}
	}
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("writing the result: %v", err)}
	}
	// A failed conformance check fails the run as a broken gate does: the
	// gate answers retries or misuse wrongly, a defect a CI job must see.
	return verdictExit(res.Overall())
}

// progressLine is the live line on a terminal's stderr: rounds done of
// planned, the outcomes so far and the worst round so far; before them,
// how far race http's --sync auto pre-run has got. Rounds update it; a
// goroutine redraws it at most every progressEvery, and only when it
// changed, with a carriage return and an erase to the end of the line.
type progressLine struct {
	w     io.Writer
	width int

	mu sync.Mutex
	// pre is the pre-run's status, shown until start.
	pre     *httprace.PreRunStatus
	planned int
	done    int
	counts  map[racetest.OutcomeKind]int
	wins    int
	// worst is the round with the most wins so far (the first of them);
	// failed, the first with an error, shown while no round won twice.
	worst, failed           int
	worstWins, failedErrors int
	dirty, drawn, started   bool
	// quit is open while the redraws run.
	quit  chan struct{}
	ended sync.WaitGroup
}

// preRound shows the pre-run's status, drawn at once the first time.
func (p *progressLine) preRound(st httprace.PreRunStatus) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started {
		return
	}
	first := p.pre == nil
	p.pre = &st
	p.dirty = true
	if first {
		p.drawLocked()
		p.runLocked()
	}
}

func (p *progressLine) start(planned int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started {
		return
	}
	p.started, p.planned, p.pre = true, planned, nil
	p.counts = map[racetest.OutcomeKind]int{}
	p.drawLocked()
	p.runLocked()
}

// runLocked starts the redraws unless they run.
func (p *progressLine) runLocked() {
	if p.quit != nil {
		return
	}
	p.quit = make(chan struct{})
	p.ended.Add(1)
	go p.redraw(p.quit)
}

// redraw runs until quit is closed; it gets the channel as an argument
// because stop clears p.quit.
func (p *progressLine) redraw(quit <-chan struct{}) {
	defer p.ended.Done()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case <-quit:
			return
		case <-tick.C:
			p.mu.Lock()
			if p.dirty {
				p.drawLocked()
			}
			p.mu.Unlock()
		}
	}
}

func (p *progressLine) round(r *racetest.Round) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.started {
		return
	}
	p.done++
	for _, o := range r.Outcomes {
		p.counts[o.Kind]++
	}
	w := r.Wins()
	p.wins += w
	if w > p.worstWins {
		p.worst, p.worstWins = r.Index, w
	}
	if e := r.Count(racetest.Error); e > 0 && p.failed == 0 {
		p.failed, p.failedErrors = r.Index, e
	}
	p.dirty = true
}

// stop ends the redraws and erases the line; start may draw it again.
func (p *progressLine) stop() {
	p.mu.Lock()
	quit := p.quit
	p.quit = nil
	p.mu.Unlock()
	if quit == nil {
		return
	}
	close(quit)
	p.ended.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		_, _ = io.WriteString(p.w, "\r\033[K")
		p.drawn = false
	}
}

func (p *progressLine) drawLocked() {
	line := p.text()
	// One column short of the width: a terminal that wraps on its last
	// column would otherwise leave the line on two.
	if max := p.width - 1; max > 0 && len(line) > max {
		line = line[:max]
	}
	_, _ = io.WriteString(p.w, "\r\033[K"+line)
	p.dirty, p.drawn = false, true
}

// text is "12 of 200 rounds: 13 wins, 11 refusals, 0 in flight; worst
// round 7: 2 wins". Wins are what performed the effect (the counted
// effects when an oracle counts); replays, errors and the rest appear when
// there are any.
func (p *progressLine) text() string {
	if p.pre != nil {
		return preRunText(*p.pre)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d rounds: %s, %s, %d in flight", p.done, p.planned,
		humanize.Count(p.wins, "win", "wins"), humanize.Count(p.counts[racetest.Refusal], "refusal", "refusals"), p.counts[racetest.InFlight])
	for _, k := range []struct {
		kind      racetest.OutcomeKind
		one, many string
	}{
		{racetest.Replay, "replay", "replays"},
		{racetest.Undecided, "win-or-replay", "win-or-replays"},
		{racetest.Serialization, "serialization failure", "serialization failures"},
		{racetest.Error, "error", "errors"},
	} {
		if n := p.counts[k.kind]; n > 0 {
			fmt.Fprintf(&b, ", %s", humanize.Count(n, k.one, k.many))
		}
	}
	switch {
	case p.worstWins > 1:
		fmt.Fprintf(&b, "; worst round %d: %s", p.worst, humanize.Count(p.worstWins, "win", "wins"))
	case p.failed > 0:
		fmt.Fprintf(&b, "; worst round %d: %s", p.failed, humanize.Count(p.failedErrors, "error", "errors"))
	case p.done > 0:
		b.WriteString("; no round won twice")
	}
	return b.String()
}

// preRunText is "sync pre-run, candidate 2 of 3: 7 of 18 rounds, 1
// doubled effect; h1 with the spin release": the candidate racing, the
// pre-run's rounds raced of those planned for every candidate, the rounds
// the oracle counted more than one effect in (when one counts), then what
// the candidate is, last, where a narrow terminal cuts the line.
func preRunText(st httprace.PreRunStatus) string {
	s := fmt.Sprintf("sync pre-run, candidate %d of %d: %d of %d rounds", st.Candidate, st.Candidates, st.Done, st.Budget)
	if st.Counted {
		s += ", " + humanize.Count(st.Doubled, "doubled effect", "doubled effects")
	} else {
		s += ", " + humanize.Count(st.Won, "round", "rounds") + " with two wins or more"
	}
	return s + "; " + st.Name
}
