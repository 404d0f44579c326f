package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// The performance table of docs/performance.md is what printTable writes: the same rows,
// in the same order, between the markers -readme replaces. A row added to
// the bench shows up here until the page is written again by a run.
func TestPerformancePageTableIsTheBenchTable(t *testing.T) {
	data, err := os.ReadFile("../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), readmeStart)
	table, _, ok2 := strings.Cut(after, readmeEnd)
	if !ok || !ok2 {
		t.Fatalf("docs/performance.md has no %q ... %q block", readmeStart, readmeEnd)
	}
	results := []*lintResult{
		{corpus: &corpus{Title: "S: schema dump", Files: []string{"s.sql"}}, lint: time.Second, parse: time.Second, psql: time.Second},
		{corpus: &corpus{Title: "L: migrations", Files: []string{"1.sql"}}, lint: time.Second, parse: time.Second, psql: time.Second},
	}
	var want bytes.Buffer
	printTable(&want, "any", results, &inspectResult{wall: time.Second, bare: time.Second, roundTrips: 2},
		&proveResult{plain: time.Second, onDSN: time.Second, perFinding: time.Millisecond, clusterStart: time.Second, onCluster: time.Second})
	if got, wantLabels := labels(table), labels(want.String()); strings.Join(got, "\n") != strings.Join(wantLabels, "\n") {
		t.Errorf("docs/performance.md's table has the rows\n  %s\nbench writes\n  %s\nrun go run ./bench -readme docs/performance.md",
			strings.Join(got, "\n  "), strings.Join(wantLabels, "\n  "))
	}
	if n := strings.Count(table, "Machine: "); n != 1 {
		t.Errorf("the performance table block names %d machines, want the one run's", n)
	}
}

// labels are the first cells of a Markdown table's rows.
func labels(table string) []string {
	var out []string
	for _, line := range strings.Split(table, "\n") {
		if cells := strings.Split(line, "|"); strings.HasPrefix(line, "|") && len(cells) > 2 {
			out = append(out, strings.TrimSpace(cells[1]))
		}
	}
	return out
}
