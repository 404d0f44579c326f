package racetest

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/fatih/color"

	"github.com/idemcheck/idemcheck/internal/humanize"
)

// WriteText writes the result for people: the header line, the
// calibration, one line per round when verbose, the worst round always,
// disagreements between the oracle and the responses, the conformance
// checks, then the verdict with its cause or confidence. When conformance
// ran, the last line folds its failures into the result.
func WriteText(w io.Writer, res *Result, verbose bool) error {
	return WriteColorText(w, res, verbose, false)
}

// WriteColorText is WriteText with, when colored is set, ANSI colours on
// the verdict (red broken, green holds, yellow inconclusive) and the
// warnings.
func WriteColorText(w io.Writer, res *Result, verbose, colored bool) error {
	planned := len(res.Rounds)
	if res.StoppedEarly {
		planned = res.Planned
	}
	if err := WriteTextHeader(w, res, planned); err != nil {
		return err
	}
	return WriteColorTextBody(w, res, verbose, colored)
}

// WriteTextHeader writes what a run is about to do, which is known before
// its first round: the header line (the target, n, the rounds planned, the
// sync and what else decides the rounds) and, when --sync auto chose, the
// sync line. A caller that shows the header before the run (race http and
// race sql on the command line) writes the rest with WriteColorTextBody
// once the run ends.
func WriteTextHeader(w io.Writer, res *Result, planned int) error {
	if err := WriteTextHeaderLine(w, res, planned); err != nil {
		return err
	}
	return WriteTextSyncLine(w, res)
}

// WriteTextHeaderLine writes the header line alone: what WriteTextHeader
// writes before the sync line. race http writes it before --sync auto's
// pre-run, when res.Sync is still auto, and the sync line once the pre-run
// chose.
func WriteTextHeaderLine(w io.Writer, res *Result, planned int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "race %s %s: n=%d, %d rounds, sync %s", res.Method, res.Target, res.N, planned, res.Sync)
	if res.Split != "" { // HTTP probes; a SQL claim has nothing to split
		fmt.Fprintf(&b, ", split %s", res.Split)
	}
	if res.Window > 0 {
		fmt.Fprintf(&b, ", window %s", fmtDuration(res.Window))
	}
	if res.Oracle != "" {
		fmt.Fprintf(&b, ", oracle %s", strings.TrimPrefix(res.Oracle, "the "))
	}
	if res.Marker != "" {
		fmt.Fprintf(&b, ", replay marker %s", res.Marker)
	}
	if res.SameKey {
		b.WriteString(", one key (--same-key)")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteTextSyncLine writes the sync line, "sync: auto chose ...", when
// --sync auto chose (res.SyncReason), and nothing otherwise.
func WriteTextSyncLine(w io.Writer, res *Result) error {
	if res.SyncReason == "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "sync: %s\n", res.SyncReason)
	return err
}

// WriteColorTextBody writes what follows the header (WriteTextHeader): a
// line saying so when the deadline stopped the run early, the calibration,
// the rounds, the conformance checks and the verdict.
func WriteColorTextBody(w io.Writer, res *Result, verbose, colored bool) error {
	paint := painter(colored)
	var b strings.Builder
	if res.StoppedEarly {
		fmt.Fprintf(&b, "ran %d of %d rounds (stopped early by the deadline)\n", len(res.Rounds), res.Planned)
	}
	if verbose {
		for _, n := range res.Notes {
			fmt.Fprintf(&b, "note: %s\n", n)
		}
	}
	for _, warn := range res.Warnings {
		fmt.Fprintf(&b, "%s: %s\n", paint(Inconclusive, "warning"), warn)
	}
	if c := res.Calibration; c != nil {
		fmt.Fprintf(&b, "calibration: %s: %s\n", c.Signature, c.Sentence)
		if c.First.Request != "" && (verbose || c.Signature == SigDifferent || c.Signature == SigUnknown) {
			fmt.Fprintf(&b, "  sent: %s\n  got:  %s\n", c.First.Request, c.First.Response)
			if c.Retry.Response != "" {
				fmt.Fprintf(&b, "  then: %s\n", c.Retry.Response)
			}
		}
	}
	if verbose {
		for i := range res.Rounds {
			b.WriteString(RoundLine(&res.Rounds[i]) + "\n")
		}
	}
	if r := res.Round(res.Verdict.WorstRound); r != nil {
		label := "worst round"
		if res.Verdict.Status == Holds {
			label = "widest round"
		}
		fmt.Fprintf(&b, "%s: %s\n", label, RoundLine(r))
	}
	writeDisagreements(&b, res.Rounds, verbose)
	for _, c := range res.Conformance {
		mark := map[CheckResult]string{CheckPass: "pass", CheckFail: "FAIL", CheckSkipped: "skipped"}[c.Result]
		fmt.Fprintf(&b, "conformance %s: %s\n", mark, c.Name)
		if c.Result != CheckSkipped {
			fmt.Fprintf(&b, "  sent: %s\n  got:  %s\n", c.Sent, c.Got)
		}
		if c.Detail != "" {
			fmt.Fprintf(&b, "  %s\n", c.Detail)
		}
	}
	if len(res.Conformance) > 0 {
		fmt.Fprintf(&b, "conformance: %s\n", conformanceCounts(res))
	}
	fmt.Fprintf(&b, "%s: %s\n", paint(res.Verdict.Status, strings.ToUpper(string(res.Verdict.Status))), res.Verdict.Sentence)
	if res.Verdict.Detail != "" {
		fmt.Fprintf(&b, "  %s\n", res.Verdict.Detail)
	}
	if res.Verdict.Cause != "" {
		fmt.Fprintf(&b, "  %s\n", res.Verdict.Cause)
	}
	if res.Verdict.Assumption != "" {
		fmt.Fprintf(&b, "  Assumed: %s.\n", res.Verdict.Assumption)
	}
	for _, d := range res.Diagnosis {
		fmt.Fprintf(&b, "  diagnosis: %s\n", d)
	}
	if res.Verdict.Confidence != "" {
		fmt.Fprintf(&b, "  %s\n", res.Verdict.Confidence)
	}
	if len(res.Conformance) > 0 {
		line := FinalLine(res)
		word, rest, _ := strings.Cut(line, ":")
		b.WriteString(paint(res.Overall(), word) + ":" + rest + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// painter colours a word by the status it announces, or leaves it alone
// when color is off. Each call makes its own color.Color with colour set
// explicitly, so that runs in parallel never share color's global switch.
func painter(enabled bool) func(Status, string) string {
	return func(st Status, word string) string {
		if !enabled {
			return word
		}
		attrs := map[Status][]color.Attribute{
			Holds:        {color.FgGreen, color.Bold},
			Broken:       {color.FgRed, color.Bold},
			Inconclusive: {color.FgYellow, color.Bold},
		}[st]
		c := color.New(attrs...)
		c.EnableColor()
		return c.Sprint(word)
	}
}

// conformanceCounts is "1 of 5 checks failed (3 passed, 1 skipped)".
func conformanceCounts(res *Result) string {
	return fmt.Sprintf("%d of %d checks failed (%d passed, %d skipped)", res.ConformanceFailures(),
		len(res.Conformance), res.ConformanceCount(CheckPass), res.ConformanceCount(CheckSkipped))
}

// FinalLine states the race and the conformance checks together, so that
// the last line never says the gate holds when the run fails:
// "FAIL: the race held; 1 of 5 conformance checks failed (3 passed, 1 skipped)".
func FinalLine(res *Result) string {
	race := map[Status]string{Holds: "the race held", Broken: "the race found the gate broken", Inconclusive: "the race was inconclusive"}[res.Verdict.Status]
	word := strings.ToUpper(string(res.Overall()))
	if res.Verdict.Status != Broken && res.ConformanceFailures() > 0 {
		word = "FAIL"
	}
	return fmt.Sprintf("%s: %s; %d of %d conformance checks failed (%d passed, %d skipped)", word, race,
		res.ConformanceFailures(), len(res.Conformance), res.ConformanceCount(CheckPass), res.ConformanceCount(CheckSkipped))
}

// writeDisagreements lists the rounds where the oracle's count contradicts
// the responses: all of them with -v, else the first three.
func writeDisagreements(b *strings.Builder, rounds []Round, verbose bool) {
	shown, total := 0, 0
	for i := range rounds {
		r := &rounds[i]
		if r.Disagreement == "" {
			continue
		}
		total++
		if verbose || shown < 3 {
			fmt.Fprintf(b, "disagreement: round %d: %s (the count decided)\n", r.Index, r.Disagreement)
			shown++
		}
	}
	if total > shown {
		fmt.Fprintf(b, "disagreement: %d more rounds (-v shows them)\n", total-shown)
	}
}

// RoundLine summarises one round: counts, statuses, timings, evidence.
func RoundLine(r *Round) string {
	var b strings.Builder
	// With an oracle the count, not the responses, says how many won: the
	// unmarked successes are shown as what they are.
	wins := humanize.Count(r.Count(Win), "win", "wins")
	if r.Effects != nil {
		wins = humanize.Count(r.Count(Win), "success", "successes")
	}
	fmt.Fprintf(&b, "round %d: %s", r.Index, wins)
	if n := r.Count(Undecided); n > 0 {
		fmt.Fprintf(&b, ", %s", humanize.Count(n, "win-or-replay", "win-or-replays"))
	}
	fmt.Fprintf(&b, ", %s, %s", humanize.Count(r.Count(Refusal), "refusal", "refusals"), humanize.Count(r.Count(Replay), "replay", "replays"))
	if n := r.Count(InFlight); n > 0 {
		fmt.Fprintf(&b, ", %d in flight", n)
	}
	fmt.Fprintf(&b, ", %s", humanize.Count(r.Count(Error), "error", "errors"))
	if n := r.Count(Serialization); n > 0 {
		fmt.Fprintf(&b, ", %s", humanize.Count(n, "serialization failure", "serialization failures"))
	}
	if r.Effects != nil {
		fmt.Fprintf(&b, ", %d effect(s) counted", *r.Effects)
	}
	statuses := make([]string, len(r.Outcomes))
	times := make([]string, len(r.Outcomes))
	for i, o := range r.Outcomes {
		statuses[i] = strconv.Itoa(o.Status)
		if o.Kind == Error && o.Err != "" && o.Status == 0 {
			statuses[i] = o.Err
		}
		if o.Answer != "" {
			statuses[i] = o.Answer
		}
		times[i] = fmtDuration(o.Elapsed)
	}
	if r.StartSpread != nil {
		// A SQL round has no client-side release to measure; the start on
		// the server's clock is the spread that matters.
		fmt.Fprintf(&b, "; answers %s; start spread %s", strings.Join(statuses, ", "), fmtDuration(*r.StartSpread))
	} else {
		fmt.Fprintf(&b, "; statuses %s; release spread %s", strings.Join(statuses, " "), fmtDuration(r.ReleaseSpread))
	}
	if r.ArrivalSpread != nil {
		fmt.Fprintf(&b, "; arrival spread %s", fmtDuration(*r.ArrivalSpread))
	}
	if r.TooWide {
		b.WriteString(" (wider than the window)")
	}
	fmt.Fprintf(&b, "; responses after %s", strings.Join(times, " "))
	if r.Retry {
		b.WriteString("; a retry of the finished key")
	}
	if r.Evidence != "" {
		fmt.Fprintf(&b, "; evidence: %s", r.Evidence)
	}
	return b.String()
}

// WriteJSON writes the result as one JSON document.
// version is the tool's, which the document names beside its own
// FormatVersion.
func WriteJSON(w io.Writer, res *Result, version string) error {
	return EncodeJSON(w, Document{FormatVersion: FormatVersion, Tool: ToolName, Version: version, Result: res})
}

// FormatVersion is the version of the race JSON document's shape; it
// changes when a field is removed, renamed or changes meaning, not when one
// is added (docs/output-contract.md, docs/schema/race.schema.json).
const FormatVersion = 1

// ToolName names the tool in the document.
const ToolName = "idemcheck"

// Document is the race JSON document: what wrote it, then the result's
// fields at the top level.
type Document struct {
	FormatVersion int    `json:"format_version"`
	Tool          string `json:"tool"`
	Version       string `json:"version"`
	*Result
}

// EncodeJSON writes v as indented JSON, as every race document is written.
func EncodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // "<redacted>", not "\u003credacted\u003e"
	return enc.Encode(v)
}

// fmtDuration prints a duration rounded to three significant places.
func fmtDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= time.Microsecond:
		return d.Round(100 * time.Nanosecond).String()
	}
	return d.String()
}
