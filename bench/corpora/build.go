package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/jackc/pgx/v5"

	"github.com/idemcheck/idemcheck/sqlparse"
)

// sqlFile is the up part of one file, as lint replays it.
type sqlFile struct {
	Path    string // as lint shows it in positions
	Display string // relative to the corpus tree, for messages
	Text    string
}

// upFiles reads the setup file and the corpus tree the way lint does (the
// same discovery, order and up part), and renders templates when the
// corpus has values for them.
func upFiles(c *corpus) ([]sqlFile, error) {
	layout, err := sqlparse.ParseLayout(c.Layout)
	if err != nil {
		return nil, err
	}
	var files []sqlFile
	if c.Setup != "" {
		text, err := os.ReadFile(c.Setup)
		if err != nil {
			return nil, err
		}
		files = append(files, sqlFile{Path: c.Setup, Display: c.Setup, Text: string(text)})
	}
	// Discovery errors (a duplicate version, say) are lint's to report; its
	// JSON has them. The files it keeps are the ones replayed here.
	trees, _ := sqlparse.Discover([]string{c.tree()}, sqlparse.DiscoverOptions{Layout: layout})
	for _, t := range trees {
		for _, f := range t.Files {
			in, err := sqlparse.ReadUp(f)
			if err != nil {
				return nil, err
			}
			text := in.Text
			if len(c.Vars) > 0 && strings.Contains(text, "{{") {
				if text, err = render(f.Path, text, c.Vars); err != nil {
					return nil, err
				}
			}
			if wrapsInTransaction[f.Layout] && !in.NoTransaction && !outsideTransaction.MatchString(text) {
				// BEGIN on the first line keeps psql's line numbers the
				// file's; the ";" ends a last statement written without one.
				text = "BEGIN; " + text + "\n;\nCOMMIT;\n"
			}
			files = append(files, sqlFile{Path: f.Path, Display: c.relative(f.Path), Text: text})
		}
	}
	return files, nil
}

// wrapsInTransaction are the layouts whose runner applies each migration in
// a transaction of its own (unless the file opts out), which some
// statements need (LOCK TABLE) and which makes a failing migration leave
// nothing behind. The others run the file as it is: golang-migrate and
// Prisma send it as one multi-statement query, sqitch files carry their own
// BEGIN and COMMIT, and dumps are applied statement by statement.
var wrapsInTransaction = map[sqlparse.Layout]bool{
	sqlparse.LayoutGoose:      true,
	sqlparse.LayoutSQLMigrate: true,
	sqlparse.LayoutDbmate:     true,
	sqlparse.LayoutTern:       true,
	sqlparse.LayoutFlyway:     true,
	sqlparse.LayoutDirs:       true,
}

// outsideTransaction finds statements PostgreSQL refuses in a transaction
// block. Runners leave such a file unwrapped, by a mark in the file (goose),
// beside it (diesel's metadata.toml) or by detecting it (Flyway).
var outsideTransaction = regexp.MustCompile(`(?i)\b(concurrently|vacuum|alter\s+system)\b`)

// render executes a Go-templated migration as its runner would: the values
// are top-level fields and, as gobuffalo/pop passes its connection options,
// also under .Options.
func render(path, text string, vars []string) (string, error) {
	data := map[string]any{}
	options := map[string]string{}
	for _, v := range vars {
		name, value, _ := strings.Cut(v, "=")
		data[name] = value
		options[name] = value
	}
	data["Options"] = options
	t, err := template.New(path).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", fmt.Errorf("%s: template: %v", path, err)
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("%s: template: %v", path, err)
	}
	return b.String(), nil
}

// scratch is a fresh database built from one corpus.
type scratch struct {
	Name       string
	DSN        string
	PsqlErrors []string // "path:line: message", in order
	admin      string
	roles      []string // created for this run
}

// buildDatabase creates a fresh database, the corpus's missing roles, and
// applies files with psql in one session, in order, going on after an
// error as a migration runner would not: every statement PostgreSQL
// refuses is one line of PsqlErrors.
func buildDatabase(ctx context.Context, adminDSN string, c *corpus, files []sqlFile) (*scratch, error) {
	s := &scratch{Name: "idemcheck_corpus_" + identifierSafe(c.Name), admin: adminDSN}
	conn, err := pgx.Connect(ctx, adminDSN)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+s.Name); err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+s.Name); err != nil {
		return nil, err
	}
	for _, role := range c.Roles {
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", role).Scan(&exists); err != nil {
			return s, err
		}
		if exists {
			continue
		}
		if _, err := conn.Exec(ctx, "CREATE ROLE "+pgx.Identifier{role}.Sanitize()+" NOLOGIN"); err != nil {
			return s, err
		}
		s.roles = append(s.roles, role)
	}
	if s.DSN, err = withDatabase(adminDSN, s.Name); err != nil {
		return s, err
	}
	if c.ORM != "" {
		s.PsqlErrors, err = ormLoad(c, s.DSN)
		return s, err
	}
	s.PsqlErrors, err = psqlApply(s.DSN, files)
	return s, err
}

// drop removes the database and the roles this run created.
func (s *scratch) drop(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+s.Name+" WITH (FORCE)"); err != nil {
		return err
	}
	for _, role := range s.roles {
		if _, err := conn.Exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{role}.Sanitize()); err != nil {
			return err
		}
	}
	return nil
}

// psqlErrorLine is psql's report of a refused statement:
// "psql:/tmp/x/0003.sql:12: ERROR:  relation "t" does not exist".
var psqlErrorLine = regexp.MustCompile(`^psql:(.+?):(\d+): ERROR:\s+(.*)$`)

// psqlApply writes each file's up text to a temporary file (the down part
// of a goose or sql-migrate file must not run) and has one psql session run
// them in order.
func psqlApply(dsn string, files []sqlFile) ([]string, error) {
	dir, err := os.MkdirTemp("", "idemcheck-corpora-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	args := []string{"-X", "-q", "-v", "ON_ERROR_STOP=0", "-d", dsn}
	display := map[string]string{}
	for i, f := range files {
		tmp := filepath.Join(dir, fmt.Sprintf("%05d.sql", i))
		if err := os.WriteFile(tmp, []byte(f.Text), 0o600); err != nil {
			return nil, err
		}
		display[tmp] = f.Display
		args = append(args, "-f", tmp)
	}
	cmd := exec.Command("psql", args...)
	cmd.Env = append(os.Environ(), "PGOPTIONS=-c client_min_messages=warning")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("psql: %v\n%s", err, firstLines(stderr.String(), 10))
	}
	return refusals(&stderr, display)
}

// abortedTransaction is what PostgreSQL answers to every statement after a
// failed one in the same transaction: not an error of its own.
const abortedTransaction = "current transaction is aborted"

// refusals reads psql's stderr into "path:line: message" lines. A
// statement ignored because an earlier one in its transaction failed is
// folded into that one's line as a count.
func refusals(stderr io.Reader, display map[string]string) ([]string, error) {
	var out []string
	ignored := 0
	flush := func() {
		if ignored > 0 && len(out) > 0 {
			out[len(out)-1] += fmt.Sprintf(" (and %d statements after it in the same transaction)", ignored)
		}
		ignored = 0
	}
	sc := bufio.NewScanner(stderr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := psqlErrorLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if strings.HasPrefix(m[3], abortedTransaction) {
			ignored++
			continue
		}
		flush()
		path := display[m[1]]
		if path == "" {
			path = m[1]
		}
		out = append(out, fmt.Sprintf("%s:%s: %s", path, m[2], m[3]))
	}
	flush()
	return out, sc.Err()
}

// withDatabase points a connection string at another database.
func withDatabase(dsn, name string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return dsn + " dbname=" + name, nil
	}
	u.Path = "/" + name
	return u.String(), nil
}

// identifierSafe keeps a corpus name usable in a database name unquoted.
func identifierSafe(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return '_'
	}, name)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
