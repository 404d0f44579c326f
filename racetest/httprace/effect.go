package httprace

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/racetest"
)

// EffectCounter is an effect oracle: it counts a round's side effect for
// the round's key (docs/race.md, "What counts as evidence", 1). The probe reads the
// count before and after each round, and after the calibration; the
// difference decides the round, whatever the responses claim.
type EffectCounter interface {
	Count(ctx context.Context, v racetest.RoundValues) (int64, error)
	// Evidence names the count in a verdict: "the PostgreSQL count".
	Evidence() string
}

// countEffects reads the oracle's count for v, bounded by --timeout on
// the client whatever the oracle does with it, and by the run's deadline.
// A failure is a StopError naming the phase ("before round 3") and how
// long the oracle was waited for.
func (p *Probe) countEffects(ctx context.Context, v racetest.RoundValues, phase string) (int64, error) {
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	n, err := p.Effect.Count(cctx, v)
	if err == nil {
		return n, nil
	}
	switch {
	case runOver(ctx):
		// The run ends here: RunRounds leaves the round out and says the
		// run stopped early.
		err = fmt.Errorf("%w (--deadline %s): %v", racetest.ErrDeadline, p.Deadline, err)
	case cctx.Err() != nil:
		err = fmt.Errorf("no answer within --timeout %s: %w", p.Timeout, err)
	}
	return 0, &racetest.StopError{Phase: p.Effect.Evidence() + " " + phase, Elapsed: time.Since(start), Err: err}
}

// maxCountBody bounds what an oracle may answer: a count is a few digits.
const maxCountBody = 4 << 10

// URLEffect counts with a GET to a URL template ({{key}}, {{round}},
// {{uuid}}) whose response body is a bare integer (--effect-url).
type URLEffect struct {
	url    racetest.Template
	client *http.Client
}

// NewURLEffect checks the template and prepares the client. A GET has
// no effect of its own, so net/http's transport is fine here.
func NewURLEffect(raw string, insecure bool, timeout time.Duration) (*URLEffect, error) {
	if _, err := parseTarget(racetest.Template(raw).Render(racetest.RoundValues{Key: "k", UUID: "u"})); err != nil {
		return nil, fmt.Errorf("--effect-url: %v", err)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: insecure}} // only with --insecure
	return &URLEffect{url: racetest.Template(raw), client: &http.Client{Transport: tr, Timeout: timeout}}, nil
}

// Count reads the count for the round.
func (e *URLEffect) Count(ctx context.Context, v racetest.RoundValues) (int64, error) {
	u := e.url.Render(v)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := e.client.Do(req)
	if err != nil {
		var ue *url.Error // it names the method and URL again
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, fmt.Errorf("GET %s: %v", redactURL(u), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCountBody))
	if err != nil {
		return 0, fmt.Errorf("GET %s: %v", redactURL(u), err)
	}
	if resp.StatusCode/100 != 2 {
		return 0, fmt.Errorf("GET %s: status %d %s", redactURL(u), resp.StatusCode, racetest.Clip(body))
	}
	return parseCount(body, "GET "+redactURL(u))
}

// Evidence names the count.
func (e *URLEffect) Evidence() string { return "the --effect-url count" }

// Close releases idle connections.
func (e *URLEffect) Close() { e.client.CloseIdleConnections() }

// CmdEffect counts by running a command that prints an integer
// (--effect-cmd). The round's key goes in the environment (IDEMCHECK_KEY,
// with IDEMCHECK_ROUND and IDEMCHECK_UUID) and as the last argument; it is
// never spliced into a shell string, and no shell runs unless the user's
// command is one.
type CmdEffect struct {
	argv    []string
	timeout time.Duration
}

// NewCmdEffect checks that the command can be found.
func NewCmdEffect(argv []string, timeout time.Duration) (*CmdEffect, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("--effect-cmd: no command given")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return nil, fmt.Errorf("--effect-cmd: %v", err)
	}
	return &CmdEffect{argv: argv, timeout: timeout}, nil
}

// Count runs the command for the round.
func (e *CmdEffect) Count(ctx context.Context, v racetest.RoundValues) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	args := append(append([]string(nil), e.argv[1:]...), v.Key)
	cmd := exec.CommandContext(ctx, e.argv[0], args...)
	cmd.Env = append(os.Environ(), "IDEMCHECK_KEY="+v.Key, "IDEMCHECK_ROUND="+strconv.Itoa(v.Round), "IDEMCHECK_UUID="+v.UUID)
	// At the timeout the command and whatever it started are killed, and
	// the wait for its output ends a moment later even when a child that
	// escaped the kill still holds the pipe.
	killGroup(cmd)
	cmd.WaitDelay = cmdWaitDelay
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limitedBuffer{b: &stdout}, &limitedBuffer{b: &stderr}
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s: %v %s", e.argv[0], err, racetest.Clip(stderr.Bytes()))
	}
	return parseCount(stdout.Bytes(), e.argv[0])
}

// Evidence names the count.
func (e *CmdEffect) Evidence() string { return "the --effect-cmd count" }

// cmdWaitDelay is how long an --effect-cmd that was killed may keep its
// output open.
const cmdWaitDelay = time.Second

// limitedBuffer keeps the first maxCountBody bytes written to it.
type limitedBuffer struct{ b *bytes.Buffer }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxCountBody - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// parseCount reads a bare integer, surrounding space allowed.
func parseCount(b []byte, from string) (int64, error) {
	s := strings.TrimSpace(string(b))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s answered %q, not a count (a bare integer)", from, racetest.Clip([]byte(s)))
	}
	return n, nil
}
