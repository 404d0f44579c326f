package racetest

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// The timeline's layout, in SVG user units (one unit is one CSS pixel). A
// test reads the rendered picture at these places.
const (
	// TimelineTop is where the first round's row begins.
	TimelineTop = 112
	// TimelineMarkX and TimelineMarkWidth place the square at the left of
	// every row that is coloured by the round's outcome.
	TimelineMarkX     = 8
	TimelineMarkWidth = 14
	// timelineGap separates two rows.
	timelineGap   = 4
	timelineLabel = 30  // where a row's label begins
	timelinePlotX = 110 // where the time axis begins
	timelinePlotW = 560 // how wide it is
	timelineWidth = 900
)

// The colours of a round's outcome, and of the window.
const (
	// ColourCaught marks a round in which the effect ran more than once.
	ColourCaught = "#d7301f"
	// ColourMissed marks a round in which it ran at most once.
	ColourMissed = "#2b8cbe"
	// ColourUnjudged marks a round that could not be judged (unresolved,
	// or no request answered).
	ColourUnjudged = "#969696"
	colourWindow   = "#fde9a6"
)

// TimelineRowHeight is the height of one round's row for n requests; rows
// are this far apart plus a gap of a few units.
func TimelineRowHeight(n int) int { return max(18, 6*n+6) }

// TimelineRowTop is where round row i (0-based, in the order of
// res.Rounds) begins.
func TimelineRowTop(n, i int) int { return TimelineTop + i*(TimelineRowHeight(n)+timelineGap) }

// RoundCaught reports whether the round caught the race: the effect ran
// more than once (counted by the oracle when there is one).
func RoundCaught(r *Round) bool { return r.Wins() > 1 }

// roundColour is the colour and the word of a round's outcome.
func roundColour(r *Round) (string, string) {
	switch {
	case RoundCaught(r):
		return ColourCaught, "caught"
	case r.Unresolved || len(r.Outcomes) == 0 || r.Count(Error) == len(r.Outcomes):
		return ColourUnjudged, "not judged"
	}
	return ColourMissed, "missed"
}

// WriteTimeline writes res as one self-contained SVG picture: a row per
// round, a lane per request in it, with the release (a bar), the arrival
// on the server (a diamond, from Server-Timing) and the response (a
// triangle) on a common time axis from the round's first release. Each
// row's square is coloured by the round's outcome, and the window
// (res.Window) is shaded from the round's first arrival, or its first
// release when the server gives no arrival. request is the request as
// shown in the text output, its secrets already redacted.
func WriteTimeline(w io.Writer, res *Result, request string) error {
	n := max(res.N, 1)
	ax := timelineAxis(res)
	rowH := TimelineRowHeight(n)
	height := TimelineRowTop(n, len(res.Rounds)) + 40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		timelineWidth, height, timelineWidth, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", timelineWidth, height)
	title := fmt.Sprintf("race %s %s: n=%d, %d rounds, sync %s", res.Method, res.Target, res.N, len(res.Rounds), res.Sync)
	if res.Split != "" {
		title += ", split " + res.Split
	}
	fmt.Fprintf(&b, `<text x="8" y="18" font-weight="bold">%s</text>`+"\n", esc(title))
	fmt.Fprintf(&b, `<text x="8" y="36">%s</text>`+"\n", esc(clipText("request: "+request, 140)))
	fmt.Fprintf(&b, `<text x="8" y="54">%s</text>`+"\n", esc(clipText(strings.ToUpper(string(res.Verdict.Status))+": "+res.Verdict.Sentence, 140)))
	writeLegend(&b, res)
	aligned := arrivalsOnClientClock(res)
	for i := range res.Rounds {
		writeRow(&b, &res.Rounds[i], TimelineRowTop(n, i), rowH, n, ax, res.Window, aligned)
	}
	axisY := TimelineRowTop(n, len(res.Rounds)) + 4
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000"/>`+"\n", timelinePlotX, axisY, timelinePlotX+timelinePlotW, axisY)
	for t := ax.lo; t <= ax.lo+ax.span; t += ax.step {
		x := ax.x(t)
		label := fmtDuration(t)
		if t < 0 {
			label = "-" + fmtDuration(-t)
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			x, axisY, x, axisY+4, x, axisY+18, esc(label))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// axis is the time span the plot shows, from lo (at or before the
// round's first release: a server may report an arrival before the
// client's release write returned) to lo+span, with a tick every step.
type axis struct{ lo, span, step time.Duration }

// timelineAxis spans twice the window and nearly every release and
// arrival (the 5th to the 95th percentile: one round delayed by the
// machine's load must not squeeze the others into a line), in round steps.
// What falls outside is drawn at the axis's end; responses later than it
// are written as numbers at the end of their lane.
func timelineAxis(res *Result) axis {
	aligned := arrivalsOnClientClock(res)
	var offs, responses []time.Duration
	arrivals := false
	for i := range res.Rounds {
		r := &res.Rounds[i]
		first, ok := firstArrival(r)
		arrivals = arrivals || ok
		for _, o := range r.Outcomes {
			offs = append(offs, o.Released)
			if o.Arrival != nil && ok {
				offs = append(offs, arrivalAt(r, o, first, aligned))
			}
			if o.Elapsed > 0 {
				responses = append(responses, o.Released+o.Elapsed)
			}
		}
	}
	if !arrivals {
		// Without arrivals the responses are all there is to see.
		offs = append(offs, responses...)
	}
	lo, hi := time.Duration(0), 2*res.Window
	if len(offs) > 0 {
		slices.Sort(offs)
		lo = min(lo, offs[len(offs)*5/100])
		hi = max(hi, offs[(len(offs)-1)*95/100])
	}
	hi = max(hi+(hi-lo)/4, lo+20*time.Microsecond)
	// 1, 2 or 5 times a power of ten, so that the ticks read well.
	raw := (hi - lo) / 4
	step := time.Duration(math.Pow(10, math.Floor(math.Log10(float64(raw)))))
	for _, m := range []time.Duration{1, 2, 5, 10} {
		if m*step >= raw {
			step *= m
			break
		}
	}
	lo = -((-lo + step - 1) / step) * step
	ticks := (hi - lo + step - 1) / step
	return axis{lo: lo, span: ticks * step, step: step}
}

// x places d on the axis, clamped to its ends.
func (a axis) x(d time.Duration) float64 {
	f := float64(d-a.lo) / float64(a.span)
	return float64(timelinePlotX) + float64(timelinePlotW)*math.Max(0, math.Min(1, f))
}

func writeLegend(b *strings.Builder, res *Result) {
	y := 76
	x := 8
	for _, item := range []struct{ colour, word string }{
		{ColourCaught, "caught: the effect ran more than once"},
		{ColourMissed, "missed: it ran at most once"},
		{ColourUnjudged, "not judged"},
	} {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", x, y-9, item.colour, x+14, y, esc(item.word))
		x += 14 + 6*len(item.word) + 24
	}
	marks := "per request: | release  ◆ arrival (Server-Timing)  ▶ response; time from the round's first release"
	if res.Window > 0 {
		marks += "; shaded: the window (" + fmtDuration(res.Window) + ") from the first arrival"
	}
	fmt.Fprintf(b, `<text x="8" y="%d" fill="#444">%s</text>`+"\n", y+18, esc(marks))
}

// writeRow draws one round.
func writeRow(b *strings.Builder, r *Round, top, rowH, n int, ax axis, window time.Duration, aligned bool) {
	colour, word := roundColour(r)
	fmt.Fprintf(b, `<g><title>%s</title>`+"\n", esc(fmt.Sprintf("round %d: %s; %s", r.Index, word, RoundLine(r))))
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", TimelineMarkX, top, TimelineMarkWidth, rowH, colour)
	fmt.Fprintf(b, `<text x="%d" y="%d">round %d</text>`+"\n", timelineLabel, top+rowH/2+4, r.Index)
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#f4f4f4"/>`+"\n", timelinePlotX, top, timelinePlotW, rowH)
	first, hasArrival := firstArrival(r)
	if window > 0 {
		from := time.Duration(0)
		if hasArrival {
			from = arrivalAt(r, Outcome{Arrival: &first}, first, aligned)
		}
		x0, x1 := ax.x(from), ax.x(from+window)
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", x0, top, x1-x0, rowH, colourWindow)
	}
	laneH := float64(rowH-6) / float64(n)
	var late []string
	for k, o := range r.Outcomes {
		y := float64(top) + 3 + laneH*(float64(k)+0.5)
		rel := ax.x(o.Released)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000" stroke-width="2"/>`+"\n", rel, y-laneH/2+0.5, rel, y+laneH/2-0.5)
		if o.Arrival != nil && hasArrival {
			arr := ax.x(arrivalAt(r, o, first, aligned))
			fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#666"/>`+"\n", rel, y, arr, y)
			d := min(3, laneH/2)
			fmt.Fprintf(b, `<path d="M%.1f %.1fl%.1f %.1fl%.1f %.1fl%.1f %.1fz" fill="#000"/>`+"\n", arr, y-d, d, d, -d, d, -d, -d)
		}
		resp := o.Released + o.Elapsed
		if o.Elapsed > 0 && resp <= ax.lo+ax.span {
			rx := ax.x(resp)
			d := min(3, laneH/2)
			fmt.Fprintf(b, `<path d="M%.1f %.1fl%.1f %.1fl%.1f %.1fz" fill="#555"/>`+"\n", rx-d, y-d, 2*d, d, -2*d, d)
		}
		late = append(late, fmtDuration(resp))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" fill="#444">%s</text>`+"\n", timelinePlotX+timelinePlotW+8, top+rowH/2+4,
		esc(clipText("▶ "+strings.Join(late, " "), 36)))
	b.WriteString("</g>\n")
}

// firstArrival is the round's earliest Server-Timing arrival.
func firstArrival(r *Round) (time.Duration, bool) {
	var lo time.Duration
	ok := false
	for _, o := range r.Outcomes {
		if o.Arrival != nil && (!ok || *o.Arrival < lo) {
			lo, ok = *o.Arrival, true
		}
	}
	return lo, ok
}

// arrivalsOnClientClock reports whether the servers' arrival times read as
// milliseconds since the Unix epoch close to the client's own clock (a
// server on the same machine, or one with a synchronised clock): then an
// arrival is drawn where it happened relative to the release. Otherwise
// every round's first arrival is drawn at its first release, and the
// others after it by the server's own differences.
func arrivalsOnClientClock(res *Result) bool {
	for i := range res.Rounds {
		r := &res.Rounds[i]
		first, ok := firstArrival(r)
		if !ok || r.Start.IsZero() {
			continue
		}
		off := time.Duration(first) - time.Duration(r.Start.UnixNano())
		if off < -time.Second || off > time.Second {
			return false
		}
	}
	return true
}

// arrivalAt is where o's arrival goes on the round's axis.
func arrivalAt(r *Round, o Outcome, first time.Duration, aligned bool) time.Duration {
	if aligned && !r.Start.IsZero() {
		return *o.Arrival - time.Duration(r.Start.UnixNano())
	}
	return *o.Arrival - first
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-3]) + "..."
	}
	return s
}

// esc escapes text for SVG.
func esc(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		default:
			if c < 0x20 && c != '\t' {
				c = ' '
			}
			b.WriteRune(c)
		}
	}
	return b.String()
}
