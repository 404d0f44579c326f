// Command corpora measures idemcheck on real migration trees against
// hand-judged ground truth and prints the table docs/corpora.md publishes:
// statements, notes, findings per rule, precision at warning and above,
// recall over every unique index with a nullable key part, the differences
// between lint and inspect, and whatever still needs a judgment.
//
//	go run ./bench/corpora -root /tmp/corpora       # every corpus of the manifest, cloned under /tmp/corpora/NAME
//	go run ./bench/corpora auth=/src/auth lago=/src/lago-api,layout=dump
//
// For each corpus it runs `idemcheck lint --prove` (JSON) on the tree; builds a
// fresh PostgreSQL database with psql from the same up SQL, in the order
// lint replays it (or, for a schema file, orm=rails or orm=prisma, with the
// framework's own load: orm.go); runs `idemcheck inspect --prove` (JSON) on that database; and
// lists, with one catalog query, every unique index with a nullable key
// part. docs/corpora/judgments/NAME.tsv holds the verdicts (judgments.go
// says how). docs/corpora/corpora.tsv is the manifest: where each corpus
// comes from, the judged commit, and its options.
//
// Real corpora stay out of CI; only the scoring is tested, on made-up data.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

type options struct {
	root           string
	manifest       string
	judgments      string
	dsn            string
	keep           bool
	details        int
	appendUnjudged bool
	bin            string
	prove          bool
	corpora        []string
}

func main() {
	var o options
	flag.StringVar(&o.root, "root", "", "measure every corpus of the manifest found at ROOT/NAME (a clone, as scripts/corpora-get.sh makes)")
	flag.StringVar(&o.manifest, "manifest", filepath.Join("docs", "corpora", "corpora.tsv"), "the corpora, their commits and options")
	flag.StringVar(&o.judgments, "judgments", filepath.Join("docs", "corpora", "judgments"), "directory of NAME.tsv judgment files")
	flag.StringVar(&o.dsn, "dsn", defaultDSN(), "PostgreSQL server the scratch databases are built on (IDEMCHECK_TEST_DSN)")
	flag.BoolVar(&o.keep, "keep", false, "keep each scratch database (idemcheck_corpus_NAME) to read by hand")
	flag.IntVar(&o.details, "details", 20, "statements PostgreSQL refused to list per corpus")
	flag.BoolVar(&o.appendUnjudged, "append-unjudged", false, "append a \"?\" row to the judgment file for everything without a verdict")
	flag.StringVar(&o.bin, "bin", "", "measure this idemcheck binary instead of building the working tree (an older commit, a release)")
	flag.BoolVar(&o.prove, "prove", true, "run lint and inspect with --prove, the scratch databases on -dsn's server, and count what PostgreSQL proved and refuted")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: go run ./bench/corpora [flags] [name=path[,layout=L][,sub=DIR][,var=NAME=VALUE][,setup=FILE][,roles=A+B][,orm=rails|prisma] ...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	o.corpora = flag.Args()
	if err := run(context.Background(), o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "corpora:", err)
		os.Exit(1)
	}
}

func defaultDSN() string {
	if dsn := os.Getenv("IDEMCHECK_TEST_DSN"); dsn != "" {
		return dsn
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

func run(ctx context.Context, o options, out, log io.Writer) error {
	corpora, err := chooseCorpora(o, log)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "idemcheck-corpora-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ic, err := buildIdemcheck(dir, o.bin)
	if err != nil {
		return err
	}
	if o.prove {
		if err := ic.proving(o.dsn); err != nil {
			return err
		}
	}
	comparable := comparableRules()
	var scores []*score
	for i := range corpora {
		c := &corpora[i]
		m, err := measure(ctx, ic, c, o, log)
		if err != nil {
			return fmt.Errorf("corpus %s: %v", c.Name, err)
		}
		jf, err := readJudgments(judgmentPath(o.judgments, c.Name))
		if err != nil {
			return err
		}
		s := scoreCorpus(m, jf, comparable)
		if o.appendUnjudged {
			if err := jf.appendUnjudged(s.Unjudged); err != nil {
				return err
			}
		}
		scores = append(scores, s)
	}
	printTables(out, scores, o.details)
	return nil
}

// chooseCorpora reads the manifest and picks the corpora named on the
// command line, or with -root every manifest corpus present under it.
func chooseCorpora(o options, log io.Writer) ([]corpus, error) {
	manifest, err := readManifest(o.manifest)
	if err != nil {
		return nil, err
	}
	var out []corpus
	for _, arg := range o.corpora {
		c, err := parseCorpusArg(arg, manifest)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if o.root != "" {
		for _, m := range manifest {
			if slices.ContainsFunc(out, func(c corpus) bool { return c.Name == m.Name }) {
				continue
			}
			m.Path = filepath.Join(o.root, m.Name)
			if _, err := os.Stat(m.tree()); err != nil {
				fmt.Fprintf(log, "corpus %s: %s is missing, left out (scripts/corpora-get.sh %s fetches it)\n", m.Name, m.tree(), o.root)
				continue
			}
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no corpus to measure: give -root DIR or name=path arguments")
	}
	return out, nil
}

// measure runs lint, builds the database, inspects it and lists its
// nullable unique indexes.
func measure(ctx context.Context, ic *idemcheck, c *corpus, o options, log io.Writer) (*measurement, error) {
	m := &measurement{Corpus: c, Commit: localCommit(c)}
	if m.Commit == "" {
		m.Commit = c.Commit
	} else if c.Commit != "" && m.Commit != c.Commit {
		m.Remarks = append(m.Remarks, fmt.Sprintf("the local copy is at %s, the judgments were made at %s", short(m.Commit), short(c.Commit)))
	}
	if len(c.Vars) > 0 && !ic.hasVars {
		m.Remarks = append(m.Remarks, "lint has no --var yet: its placeholders stay unfilled (psql gets the rendered text)")
	}
	fmt.Fprintf(log, "corpus %s: lint %s\n", c.Name, c.tree())
	var err error
	if m.Lint, err = ic.lint(c); err != nil {
		return nil, err
	}
	var files []sqlFile
	if c.ORM == "" {
		if files, err = upFiles(c); err != nil {
			return nil, err
		}
		if diff := orderDifference(m.Lint.files(), files); diff != "" {
			m.Remarks = append(m.Remarks, diff)
		}
		fmt.Fprintf(log, "corpus %s: psql applies %d files to a fresh database\n", c.Name, len(files))
	} else {
		fmt.Fprintf(log, "corpus %s: %s loads %s into a fresh database\n", c.Name, c.ORM, c.tree())
	}
	db, err := buildDatabase(ctx, o.dsn, c, files)
	if db != nil && !o.keep {
		defer func() {
			if err := db.drop(ctx); err != nil {
				fmt.Fprintf(log, "corpus %s: dropping %s: %v\n", c.Name, db.Name, err)
			}
		}()
	}
	if err != nil {
		return nil, err
	}
	m.PsqlErrors = db.PsqlErrors
	fmt.Fprintf(log, "corpus %s: inspect %s\n", c.Name, db.Name)
	if m.Inspect, err = ic.inspect(db.DSN); err != nil {
		return nil, err
	}
	if m.Indexes, err = listNullableUniqueIndexes(ctx, db.DSN); err != nil {
		return nil, err
	}
	return m, nil
}

// orderDifference says where psql's files differ from the files lint
// replayed; "" when they are the same, in the same order.
func orderDifference(lint []string, psql []sqlFile) string {
	for i := 0; i < max(len(lint), len(psql)); i++ {
		var l, p string
		if i < len(lint) {
			l = lint[i]
		}
		if i < len(psql) {
			p = psql[i].Path
		}
		if l != p {
			return fmt.Sprintf("psql was given other files than lint replayed: file %d is %q for lint, %q for psql (%d and %d files)", i+1, l, p, len(lint), len(psql))
		}
	}
	return ""
}

// localCommit is the HEAD of the local copy when it is the top of a git
// checkout (not a directory inside some other repository).
func localCommit(c *corpus) string {
	out, err := exec.Command("git", "-C", c.Path, "rev-parse", "--show-toplevel", "HEAD").Output()
	if err != nil {
		return ""
	}
	lines := strings.Fields(string(out))
	abs, err := filepath.Abs(c.Path)
	if err != nil || len(lines) != 2 {
		return ""
	}
	if top, err := filepath.EvalSymlinks(lines[0]); err != nil || top != mustEval(abs) {
		return ""
	}
	return lines[1]
}

func mustEval(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return path
}
