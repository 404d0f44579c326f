package racetest

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// WriteText writes the result for people: the header line, one line per
// round when verbose, the worst round always, then the verdict with its
// cause or confidence.
func WriteText(w io.Writer, res *Result, verbose bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "race %s %s: n=%d, %d rounds, sync %s", res.Method, res.Target, res.N, len(res.Rounds), res.Sync)
	if res.Sync == SyncH1 || res.Sync == SyncH2 {
		fmt.Fprintf(&b, ", split %s", res.Split)
	}
	if res.Window > 0 {
		fmt.Fprintf(&b, ", window %s", fmtDuration(res.Window))
	}
	b.WriteString("\n")
	for _, warn := range res.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
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
	for _, c := range res.Conformance {
		mark := "pass"
		if !c.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "conformance %s: %s\n  sent: %s\n  got:  %s\n", mark, c.Name, c.Sent, c.Got)
		if c.Detail != "" {
			fmt.Fprintf(&b, "  %s\n", c.Detail)
		}
	}
	if len(res.Conformance) > 0 {
		fmt.Fprintf(&b, "conformance: %d of %d checks failed\n", res.ConformanceFailures(), len(res.Conformance))
	}
	fmt.Fprintf(&b, "%s: %s\n", strings.ToUpper(string(res.Verdict.Status)), res.Verdict.Sentence)
	if res.Verdict.Detail != "" {
		fmt.Fprintf(&b, "  %s\n", res.Verdict.Detail)
	}
	if res.Verdict.Cause != "" {
		fmt.Fprintf(&b, "  %s\n", res.Verdict.Cause)
	}
	for _, d := range res.Diagnosis {
		fmt.Fprintf(&b, "  diagnosis: %s\n", d)
	}
	if res.Verdict.Confidence != "" {
		fmt.Fprintf(&b, "  %s\n", res.Verdict.Confidence)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// RoundLine summarises one round: counts, statuses, timings.
func RoundLine(r *Round) string {
	var b strings.Builder
	fmt.Fprintf(&b, "round %d: %s, %s, %s, %s", r.Index, plural(r.Count(Win), "win"),
		plural(r.Count(Refusal), "refusal"), plural(r.Count(Replay), "replay"), plural(r.Count(Error), "error"))
	if n := r.Count(Serialization); n > 0 {
		fmt.Fprintf(&b, ", %s", plural(n, "serialization failure"))
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
	return b.String()
}

// WriteJSON writes the result as one JSON document.
func WriteJSON(w io.Writer, res *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
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

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
