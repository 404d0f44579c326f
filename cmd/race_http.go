package cmd

import (
	"context"
	"errors"
	"fmt"
	"github.com/mattn/go-shellwords"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/inspect"
	"github.com/idemcheck/idemcheck/racetest"
	"github.com/idemcheck/idemcheck/racetest/httprace"
	"github.com/idemcheck/idemcheck/racetest/sqlrace"
	"github.com/spf13/cobra"
)

func init() { raceSubcommands = append(raceSubcommands, newRaceHTTPCmd) }

type raceHTTPOptions struct {
	out      raceOutput
	method   string
	headers  []string
	data     string
	n        int
	rounds   int
	sync     string
	split    string
	release  string
	oneCPU   string
	warm     bool
	warmURL  string
	timeout  time.Duration
	deadline time.Duration
	window   time.Duration
	settle   time.Duration
	insecure bool
	force    bool
	win      string
	refuse   string
	inFlight string
	sameKey  bool
	effect   string
	dsn      string
	effURL   string
	effCmd   string
	// effParams are --effect-sql's parameters in order (default {{key}}).
	effParams []string
	marker    string
	// markerGiven is set when --replay-header was given.
	markerGiven bool
	noCalib     bool
	secrets     []string
	conform     bool
	profile     string
	failData    string
	timeline    string
}

func newRaceHTTPCmd(s *Streams) *cobra.Command {
	o := &raceHTTPOptions{}
	c := &cobra.Command{
		Use:   "http [flags] URL",
		Short: "Race N identical HTTP requests at URL, round after round",
		Long: `http fires N identical requests at URL so that they reach the server's code
at the same moment, for --rounds rounds. {{key}}, {{round}} and {{uuid}} in
the URL, headers and body render to fresh values each round, shared by the
round's N requests.

HTTP/1.1 withholds the tail of every request on pre-opened connections and
releases them together (--split headers|last-byte); HTTP/2 sends every
stream's withheld frames in one write (--sync h2). --sync auto looks at the
server (ALPN, HTTP/2 SETTINGS, the Server header of OPTIONS *), picks the
mode that measures best for its kind (docs/race-sync.md) and says which
and why; a server it cannot place gets a short measured pre-run when it
sends Server-Timing or an oracle counts, and the default otherwise.

A response is a win (--win, default 2xx), a refusal (--refuse, default
409,425), in flight (--in-flight, default 202: accepted, not yet
performed), a replay (marked Idempotent-Replayed: true, or --replay-header)
or an error (5xx, timeout, reset). Two identical successes are evidence of
nothing: a handler that ran twice sends the same bytes twice. What decides:

  an effect oracle, counting the effect per key before and after each round:
    --effect-sql (with --dsn), --effect-url (GET, a bare integer back) or
    --effect-cmd (prints an integer; the key in IDEMCHECK_KEY and as its
    last argument);
  the replay marker; one given with --replay-header is evidence: an
    unmarked success beside a win is a second win;
  the calibration, once per run: a fresh key sent, then sent again after
    its response. A refusal means the server never replays, so two
    successes are two wins; the same bytes unmarked mean replays cannot be
    told from wins, and a round with identical successes is unresolved
    (exit 3) until an oracle or a marker settles it.

Without an oracle a verdict rests on the responses, and says so: a refusal
is assumed to have done no work. When the calibration's retry of a finished
key is refused only after about as long as a win takes, the effect may run
before the claim, and the run is inconclusive (docs/race.md).

Every round needs a fresh key: a request with no {{key}}, {{uuid}} or
{{round}} anywhere is a usage error unless --same-key says to race one key.

A target that sends "Server-Timing: arrival;dur=<milliseconds on its
clock>" gets its arrival spread measured, which --window then judges.`,
		Example: `  idemcheck race http -X POST -H 'Idempotency-Key: {{key}}' -d '{"amount":100}' https://api.example.test/payments
  idemcheck race http -n 8 -H 'Idempotency-Key: {{key}}' --effect-sql 'select count(*) from payments where key = $1' --dsn $DATABASE_URL URL
  idemcheck race http -H 'Idempotency-Key: {{key}}' --effect-url 'http://localhost:8080/admin/charges/count?key={{key}}' URL
  idemcheck race http -H 'Idempotency-Key: {{key}}' --effect-cmd './count-charges --db staging' URL`,
		Args: oneArg("the URL to race", "idemcheck race http -H 'Idempotency-Key: {{key}}' http://127.0.0.1:8080/payments"),
		RunE: func(c *cobra.Command, args []string) error {
			o.markerGiven = c.Flags().Changed("replay-header")
			return runRaceHTTP(c.Context(), s, o, args[0])
		},
	}
	f := c.Flags()
	f.StringVarP(&o.method, "request", "X", "POST", "request method")
	f.StringArrayVarP(&o.headers, "header", "H", nil, "request header 'Name: value' (repeatable)")
	f.StringVarP(&o.data, "data", "d", "", "request body, or @file to read it from a file")
	f.IntVarP(&o.n, "requests", "n", 2, "requests per round")
	f.IntVar(&o.rounds, "rounds", 30, "rounds, each with a fresh key")
	f.StringVar(&o.sync, "sync", "auto", "synchronisation: h1, h2 or auto (with an oracle, a short pre-run picks the mode, release and --one-cpu that counted the most doubled effects)")
	f.StringVar(&o.split, "split", "auto", "where to withhold the request until the release: headers, last-byte, none (the whole request at the release, no settle), or auto (measured by --sync auto's pre-run; none for HTTP/1.1 and headers for HTTP/2 where nothing measures it)")
	f.StringVar(&o.release, "release", "auto", "how HTTP/1.1 tails are released: auto (measured by the pre-run with an oracle; else wake when the probe runs on one CPU, spin otherwise), spin, parked, thread or wake (docs/race-sync.md)")
	f.StringVar(&o.oneCPU, "one-cpu", "auto", "when the target is on this machine (loopback), run the probe on one CPU so that the server keeps the others (Linux): true, false, or auto (a candidate of --sync auto's pre-run when an oracle counts, off otherwise)")
	f.Lookup("one-cpu").NoOptDefVal = "true"
	f.BoolVar(&o.warm, "warm", true, "keep HTTP/1.1 connections alive from round to round, and warm each new one with one request (OPTIONS *, or GET --warm-url) before its first round")
	f.StringVar(&o.warmURL, "warm-url", "", "with --warm: GET this URL (on the target's scheme, host and port) to warm a new connection instead of OPTIONS *")
	f.DurationVar(&o.timeout, "timeout", 10*time.Second, "bound on each request from its release, and on each oracle call (--effect-sql, --effect-url, --effect-cmd)")
	f.DurationVar(&o.deadline, "deadline", 5*time.Minute, "deadline for the whole run: the oracle's connection, the calibration, the rounds and the conformance checks")
	f.DurationVar(&o.window, "window", 0, "race window: a round whose spread exceeds it is inconclusive")
	f.DurationVar(&o.settle, "settle", 100*time.Millisecond, "how long the withheld requests settle on the wire before the release, and how long after a round's last answer an oracle's count is read")
	f.BoolVar(&o.insecure, "insecure", false, "accept a self-signed TLS certificate")
	f.BoolVar(&o.force, "force", false, "allow -n above 256 or --rounds above 10000")
	f.StringVar(&o.win, "win", "2xx", "statuses that mean the request performed the effect")
	f.StringVar(&o.refuse, "refuse", "409,425", "statuses that mean the gate refused the request")
	f.StringVar(&o.inFlight, "in-flight", "202", "statuses that accepted the request for later without performing it yet, an outcome of their own (none for no such class); --win overrides it only by naming the status itself")
	f.BoolVar(&o.sameKey, "same-key", false, "send one key in every round on purpose: round 1 races it, later rounds retry it after it finished (without it, rounds that would send identical requests are a usage error)")
	f.StringVar(&o.effect, "effect-sql", "", "query counting the effect for key $1 (or the --effect-param values), run before and after each round (needs --dsn, DATABASE_URL or PGHOST/PGDATABASE)")
	f.StringArrayVar(&o.effParams, "effect-param", nil, "a parameter of --effect-sql, in order ($1, $2, ...): a template such as '{{uuid}}', bound as a value (repeatable; default one, '{{key}}')")
	f.StringVar(&o.dsn, "dsn", "", "PostgreSQL connection for --effect-sql (default DATABASE_URL, then PG* variables)")
	f.StringVar(&o.effURL, "effect-url", "", "URL counting the effect for {{key}}: GET, a bare integer back")
	f.StringVar(&o.effCmd, "effect-cmd", "", "command counting the effect: 'CMD ARGS...', split into words without a shell; the key is its last argument and in IDEMCHECK_KEY")
	f.StringVar(&o.marker, "replay-header", "Idempotent-Replayed: true", "the header by which the server marks a replay, 'Name: value'; given, it is evidence: an unmarked success beside a win is a second win")
	f.BoolVar(&o.noCalib, "no-calibrate", false, "skip the calibration (a key sent twice in sequence before the first round)")
	f.StringArrayVar(&o.secrets, "secret-header", nil, "a header to redact wherever requests are shown (repeatable; Authorization, Cookie and Set-Cookie always are)")
	f.BoolVar(&o.conform, "conformance", false, "also run the five sequential conformance checks")
	f.StringVar(&o.profile, "profile", "ietf", "conformance statuses: ietf, stripe or custom (custom uses --refuse)")
	f.StringVar(&o.failData, "fail-data", "", "conformance: a body the target must fail on (check 4)")
	f.StringVar(&o.timeline, "timeline", "", "write a picture of the rounds to FILE (SVG): release, arrival and response per request, coloured by outcome")
	o.out.bind(c)
	o.out.bindQuiet(c)
	completeWords(c, "request", []string{"POST", "PUT", "PATCH", "DELETE", "GET"})
	completeWords(c, "in-flight", []string{"202", "none"})
	completeWords(c, "effect-param", []string{"{{key}}", "{{uuid}}", "{{round}}"})
	completeWords(c, "sync", []string{httprace.SyncAuto, httprace.SyncH1, httprace.SyncH2})
	completeWords(c, "split", []string{httprace.SplitAuto, httprace.SplitHeaders, httprace.SplitLastByte, httprace.SplitNone})
	completeWords(c, "release", []string{httprace.ReleaseAuto, httprace.ReleaseSpin, httprace.ReleaseParked, httprace.ReleaseThread, httprace.ReleaseWake})
	completeWords(c, "profile", []string{"ietf", "stripe", "custom"})
	return c
}

func runRaceHTTP(ctx context.Context, s *Streams, o *raceHTTPOptions, url string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := o.out.validate(s); err != nil {
		return err
	}
	// --deadline bounds the whole run: the oracle's connection, the race
	// and the conformance checks.
	ctx, cancel := context.WithTimeout(ctx, o.deadline)
	defer cancel()
	p, err := o.probe(s, url)
	if err != nil {
		return err
	}
	var prof httprace.Profile
	if o.conform {
		if prof, err = httprace.ProfileNamed(o.profile, p.Classifier.Refuse); err != nil {
			return usageError("%v", err)
		}
	}
	closeOracle, err := o.oracle(ctx, &p)
	if err != nil {
		return err
	}
	defer closeOracle()
	rep := newRaceReport(s, o.out)
	defer rep.stop()
	p.Progress = rep
	res, err := httprace.Run(ctx, p)
	if err != nil {
		return usageError("race http %s: %v", url, err)
	}
	if o.conform {
		res.Conformance = httprace.Conform(ctx, p, prof, o.failData, res)
	}
	if o.timeline != "" {
		if err := writeTimeline(o.timeline, &p, res); err != nil {
			return err
		}
	}
	return rep.write(res)
}

// writeTimeline writes the picture of res to file, showing the first
// round's request redacted as the text output shows requests.
func writeTimeline(file string, p *httprace.Probe, res *racetest.Result) error {
	req := p.Method + " " + res.Target
	if len(res.Rounds) > 0 {
		req = p.Shown(res.Rounds[0].Values)
	}
	f, err := os.Create(file)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--timeline: %v", err)}
	}
	err = racetest.WriteTimeline(f, res, req)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--timeline %s: %v", file, err)}
	}
	return nil
}

// probe turns the flags into an httprace.Probe, reporting bad flags as usage
// errors.
func (o *raceHTTPOptions) probe(s *Streams, url string) (httprace.Probe, error) {
	// curl's -X/--request is the method, one letter from -n/--requests.
	if _, err := strconv.Atoi(o.method); err == nil {
		return httprace.Probe{}, usageError("-X/--request %q is the request method; the number of requests per round is -n/--requests", o.method)
	}
	p := httprace.Probe{
		Method: strings.ToUpper(o.method), URL: racetest.Template(url),
		N: o.n, Rounds: o.rounds, Sync: o.sync, Split: o.split, Release: o.release,
		Timeout: o.timeout, Deadline: o.deadline, Window: o.window, Settle: o.settle,
		Insecure: o.insecure, Force: o.force, Warm: o.warm, WarmURL: o.warmURL,
	}
	switch o.oneCPU {
	case "true":
		p.OneCPU = true
	case "auto":
		p.TryOneCPU = true
	case "false":
	default:
		return p, usageError("--one-cpu %q: want true, false or auto", o.oneCPU)
	}
	if o.warmURL != "" && !o.warm {
		return p, usageError("--warm-url names the warm-up request of --warm, which is off")
	}
	for _, h := range o.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return p, usageError("-H %q: want 'Name: value'", h)
		}
		if strings.ContainsAny(h, "\r\n") {
			return p, usageError("-H %q: a header cannot contain a line break", h)
		}
		p.Header = append(p.Header, httprace.Header{Name: strings.TrimSpace(name), Value: racetest.Template(strings.TrimSpace(value))})
	}
	body, err := readRaceData(o.data)
	if err != nil {
		return p, err
	}
	p.Body = racetest.Template(body)
	if p.Classifier.Win, err = racetest.ParseStatusSet(o.win); err != nil {
		return p, usageError("--win: %v", err)
	}
	if p.Classifier.Refuse, err = racetest.ParseStatusSet(o.refuse); err != nil {
		return p, usageError("--refuse: %v", err)
	}
	if o.inFlight == "none" {
		p.Classifier.InFlight = racetest.StatusSet{}
	} else if p.Classifier.InFlight, err = racetest.ParseStatusSet(o.inFlight); err != nil {
		return p, usageError("--in-flight: %v", err)
	}
	p.SameKey = o.sameKey
	if o.effect != "" && o.dsn == "" {
		o.dsn = raceGetenv(s, "DATABASE_URL")
		// The same rule as inspect and race sql: with no database named,
		// libpq's defaults would be a guess.
		if err := inspect.Given(o.dsn, func(k string) string { return raceGetenv(s, k) }); err != nil {
			return p, usageError("--effect-sql: %v", err)
		}
	}
	oracles := 0
	for _, f := range []string{o.effect, o.effURL, o.effCmd} {
		if f != "" {
			oracles++
		}
	}
	if oracles > 1 {
		return p, usageError("give one effect oracle: --effect-sql, --effect-url or --effect-cmd")
	}
	if len(o.effParams) > 0 && o.effect == "" {
		return p, usageError("--effect-param binds the parameters of --effect-sql, which was not given")
	}
	if p.Marker, err = racetest.ParseReplayMarker(o.marker); err != nil {
		return p, usageError("%v", err)
	}
	// A marker the user named is evidence of its own (docs/race.md).
	p.Marker.Declared = o.markerGiven
	p.NoCalibrate, p.Secrets = o.noCalib, o.secrets
	if o.settle <= 0 {
		return p, usageError("--settle %s: want a positive duration", o.settle)
	}
	p.Defaults()
	if err := p.Validate(); err != nil {
		return p, usageError("%v", err)
	}
	return p, nil
}

// oracle opens the effect oracle the flags name, if any, and returns what
// closes it.
func (o *raceHTTPOptions) oracle(ctx context.Context, p *httprace.Probe) (func(), error) {
	switch {
	case o.effect != "":
		eff, err := sqlrace.NewEffect(ctx, o.dsn, o.effect, o.effParams, o.timeout)
		if err != nil {
			return nil, usageError("%v", err)
		}
		p.Effect = eff
		return func() { eff.Close(context.Background()) }, nil
	case o.effURL != "":
		eff, err := httprace.NewURLEffect(o.effURL, o.insecure, o.timeout)
		if err != nil {
			return nil, usageError("%v", err)
		}
		p.Effect = eff
		return eff.Close, nil
	case o.effCmd != "":
		argv, err := splitWords(o.effCmd)
		if err != nil {
			return nil, usageError("--effect-cmd: %v", err)
		}
		eff, err := httprace.NewCmdEffect(argv, o.timeout)
		if err != nil {
			return nil, usageError("%v", err)
		}
		p.Effect = eff
	}
	return func() {}, nil
}

// splitWords splits --effect-cmd into words as a POSIX shell would for
// quotes and backslashes (github.com/mattn/go-shellwords), without running
// a shell: no variables, command substitution, globs or operators. An
// unquoted operator (| ; & < >) is refused rather than passed on as an
// argument, since the command would not do what it says.
func splitWords(s string) ([]string, error) {
	p := shellwords.NewParser()
	p.ParseEnv, p.ParseBacktick = false, false
	words, err := p.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%q: an unterminated quote or a trailing backslash", s)
	}
	if p.Position >= 0 {
		return nil, fmt.Errorf("%q: %q at byte %d is shell syntax, and the command runs without a shell: "+
			"give the shell itself, e.g. --effect-cmd 'sh -c \"...\"'", s, s[p.Position:p.Position+1], p.Position+1)
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("no command given")
	}
	return words, nil
}

// readRaceData reads -d: literal text, or @file for a file's contents.
func readRaceData(d string) (string, error) {
	name, isFile := strings.CutPrefix(d, "@")
	if !isFile {
		return d, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return "", usageError("-d @%s: %v", name, errors.Unwrap(err))
	}
	return string(b), nil
}

func raceGetenv(s *Streams, k string) string {
	if s.Getenv == nil {
		return ""
	}
	return s.Getenv(k)
}
