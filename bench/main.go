// Command bench measures idemcheck against the yardsticks of its
// performance issue and prints one table: lint on a generated schema dump
// (corpus S) and a generated migration tree (corpus L) against a
// single-goroutine full parse and against replaying the same SQL into
// PostgreSQL with psql, lint's peak memory, --prove on a tree of 100
// holes beside the same lint without it (per finding, and the throwaway
// cluster's start), and inspect on a 10,000-table database against the
// bare catalog query.
//
//	go run ./bench
//	go run ./bench -readme docs/performance.md   # and write the table into that page
//
// Corpora are generated deterministically under bench/out (git-ignored).
// It needs the PostgreSQL server of IDEMCHECK_TEST_DSN and psql for the
// replay and inspect rows; -skip-server leaves them out.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

type options struct {
	out        string
	dsn        string
	runs       int
	skipServer bool
	readme     string
}

func main() {
	var o options
	flag.StringVar(&o.out, "out", filepath.Join("bench", "out"), "directory for the generated corpora and the built binary")
	flag.StringVar(&o.dsn, "dsn", defaultDSN(), "PostgreSQL server for the psql replay and inspect rows (IDEMCHECK_TEST_DSN)")
	flag.IntVar(&o.runs, "runs", 5, "runs of lint and of the parse baseline per corpus; the best of each is reported")
	flag.BoolVar(&o.skipServer, "skip-server", false, "leave out the rows that need PostgreSQL")
	flag.StringVar(&o.readme, "readme", "", "also write the table into this page (docs/performance.md), between its bench markers")
	flag.Parse()
	if err := run(o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func defaultDSN() string {
	if dsn := os.Getenv("IDEMCHECK_TEST_DSN"); dsn != "" {
		return dsn
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// run generates the corpora, measures everything and prints the table;
// progress goes to log.
func run(o options, out, log io.Writer) error {
	if o.runs < 1 {
		return fmt.Errorf("-runs must be at least 1")
	}
	dir := o.out
	fmt.Fprintln(log, "generating corpora in", dir)
	if err := os.RemoveAll(filepath.Join(dir, "S")); err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(dir, "L")); err != nil {
		return err
	}
	s, err := generateDump(dir)
	if err != nil {
		return err
	}
	l, err := generateMigrations(dir)
	if err != nil {
		return err
	}
	bin, err := buildIdemcheck(dir)
	if err != nil {
		return err
	}
	var results []*lintResult
	for _, c := range []*corpus{s, l} {
		r, err := measureCorpus(c, bin, o, log)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	var ins *inspectResult
	var pr *proveResult
	if !o.skipServer {
		var holes string
		if holes, err = generateHoles(dir); err != nil {
			return err
		}
		if pr, err = measureProve(bin, holes, o, log); err != nil {
			return err
		}
		ins, err = measureInspect(o, log)
	}
	var table bytes.Buffer
	printTable(&table, machine(o), results, ins, pr)
	if _, werr := out.Write(table.Bytes()); werr != nil {
		return werr
	}
	if err == nil && o.readme != "" {
		err = writeReadme(o.readme, table.Bytes())
	}
	return err
}
