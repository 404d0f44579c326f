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
	maxLintToParse = 0.5  // lint at most half the single-goroutine parse
	minPsqlToLint  = 20.0 // lint at least 20x faster than psql replay
	rssFileFactor  = 3    // peak RSS below 3x the largest file ...
	rssAllowance   = 64 << 20
	maxInspectBare = 1.5 // inspect at most 1.5x the bare catalog query
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
		return verdict(ratio(r.lint, r.parse), "x", ratio(r.lint, r.parse) <= maxLintToParse)
	}, fmt.Sprintf("≤ %.2fx", maxLintToParse))
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
