package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idemcheck/idemcheck/internal/humanize"
)

// The targets.
const (
	maxLintToParse = 0.5 // lint at most half the single-goroutine parse
	// maxLintToParseReal is the target on a real file given with -corpus
	// (issue 24: the 534 KB structure.sql of lago, where lint parses what
	// the prefilter lets through and replays a schema's worth of DDL).
	maxLintToParseReal = 0.9
	minPsqlToLint      = 20.0 // lint at least 20x faster than psql replay
	rssFileFactor      = 3    // peak RSS below 3x the largest file ...
	rssAllowance       = 64 << 20
	maxInspectBare     = 1.5 // inspect at most 1.5x the bare catalog query
)

// printTable writes the one table of the run, as Markdown.
func printTable(w io.Writer, machine string, results []*lintResult, ins *inspectResult, pr *proveResult) {
	fmt.Fprintf(w, "Machine: %s\n\n", machine)
	header := []string{"measure"}
	for _, r := range results {
		header = append(header, r.corpus.Title)
	}
	header = append(header, "target")
	row(w, header...)
	row(w, strings.Split(strings.Repeat("---,", len(header)), ",")[:len(header)]...)

	lintRow := func(name string, cell func(r *lintResult) string, target string) {
		cells := []string{name}
		for _, r := range results {
			cells = append(cells, cell(r))
		}
		row(w, append(cells, target)...)
	}
	lintRow("input", func(r *lintResult) string {
		return fmt.Sprintf("%s, %s statements, %s (largest file %s)", humanize.Count(len(r.corpus.Files), "file", "files"),
			humanize.Thousands(r.statements), megabytes(r.corpus.Bytes), megabytes(r.corpus.Largest))
	}, "")
	lintRow("`idemcheck lint` wall time (best of runs)", func(r *lintResult) string { return seconds(r.lint) }, "")
	lintRow("`pg_query.Parse` of every statement, one goroutine (best of runs)", func(r *lintResult) string { return seconds(r.parse) }, "")
	lintRow("lint / single-goroutine parse", func(r *lintResult) string {
		return verdict(ratio(r.lint, r.parse), "x", ratio(r.lint, r.parse) <= r.corpus.maxRatio())
	}, targets(results))
	if results[0].ir != nil {
		lintRow("instructions: lint process (callgrind)", func(r *lintResult) string { return giga(r.ir.lint) }, "")
		lintRow("instructions: parse of every statement (callgrind; parse run less split-only run)", func(r *lintResult) string {
			return giga(r.ir.parse())
		}, "")
		// The count is every core's work, the wall time's ratio what a user
		// waits: the target is on the second, this row says how much of it
		// comes from running on more than one core.
		lintRow("instructions: lint / parse", func(r *lintResult) string {
			return fmt.Sprintf("%.2fx", float64(r.ir.lint)/float64(r.ir.parse()))
		}, "none (all cores' work)")
	}
	if results[0].psql > 0 {
		lintRow("psql replay into PostgreSQL", func(r *lintResult) string {
			return fmt.Sprintf("%s (%s)", seconds(r.psql), humanize.Count(r.psqlErrors, "error", "errors"))
		}, "")
		lintRow("psql replay / lint", func(r *lintResult) string {
			return verdict(ratio(r.psql, r.lint), "x", ratio(r.psql, r.lint) >= minPsqlToLint)
		}, fmt.Sprintf("≥ %.0fx", minPsqlToLint))
	}
	lintRow("lint peak RSS", func(r *lintResult) string {
		return verdict(float64(r.maxRSS)/(1<<20), " MB", r.maxRSS < rssBudget(r))
	}, "< budget")
	lintRow("RSS budget: 3 × largest file + 64 MB", func(r *lintResult) string { return megabytes(rssBudget(r)) }, "")

	if pr != nil {
		printProve(w, pr, len(results))
	}
	if ins == nil {
		return
	}
	blank := make([]string, len(results)-1)
	row(w, append(append([]string{"`inspect`, 10,000 tables / 30,000 indexes (BenchmarkInspect, best of 3)", seconds(ins.wall)}, blank...), "")...)
	row(w, append(append([]string{"round trips", fmt.Sprint(ins.roundTrips)}, blank...), "constant")...)
	row(w, append(append([]string{"bare catalog query (best of 3)", seconds(ins.bare)}, blank...), "")...)
	r := ratio(ins.wall, ins.bare)
	row(w, append(append([]string{"inspect / bare query", verdict(r, "x", r <= maxInspectBare)}, blank...), fmt.Sprintf("≤ %.1fx", maxInspectBare))...)
}

// maxRatio is the corpus's target for lint / parse.
func (c *corpus) maxRatio() float64 {
	if c.target > 0 {
		return c.target
	}
	return maxLintToParse
}

// targets writes the target cell of the ratio rows: one figure, or each
// corpus's when they differ.
func targets(results []*lintResult) string {
	var list []string
	for _, r := range results {
		t := fmt.Sprintf("≤ %.2fx", r.corpus.maxRatio())
		if len(list) == 0 || !strings.HasSuffix(list[len(list)-1], t) {
			list = append(list, t)
		}
	}
	if len(list) == 1 {
		return list[0]
	}
	var cells []string
	for _, r := range results {
		cells = append(cells, fmt.Sprintf("%s: ≤ %.2fx", r.corpus.Name, r.corpus.maxRatio()))
	}
	return strings.Join(cells, ", ")
}

// giga writes an instruction count in billions (G) or millions (M).
func giga(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.2f G", float64(n)/1e9)
	}
	return fmt.Sprintf("%.0f M", float64(n)/1e6)
}

func rssBudget(r *lintResult) int64 { return rssFileFactor*r.corpus.Largest + rssAllowance }

func row(w io.Writer, cells ...string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// verdict prints a figure with whether it meets its target.
func verdict(v float64, unit string, met bool) string {
	s := fmt.Sprintf("%.2f%s", v, unit)
	if v >= 100 {
		s = fmt.Sprintf("%.0f%s", v, unit)
	}
	if met {
		return s + " (met)"
	}
	return s + " (MISSED)"
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func megabytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
