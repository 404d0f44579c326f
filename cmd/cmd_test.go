package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"
)

// result is what one idemcheck invocation produced.
type result struct {
	code          int
	stdout, stder string
}

// invocation describes how idemcheck is run in a test: the environment,
// stdin and whether stdout is a terminal.
type invocation struct {
	env      map[string]string
	stdin    string
	terminal bool
	// width is the terminal's width (Streams.Width), 0 for none.
	width int
}

func (inv invocation) run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	s := &Streams{
		In:          strings.NewReader(inv.stdin),
		Out:         &out,
		Err:         &errOut,
		OutTerminal: inv.terminal,
		Width:       inv.width,
		Getenv:      func(k string) string { return inv.env[k] },
	}
	code := Run(s, args)
	return result{code: code, stdout: out.String(), stder: errOut.String()}
}

func run(t *testing.T, args ...string) result {
	t.Helper()
	return invocation{}.run(t, args...)
}

// writeFile writes one SQL file and returns its path.
func writeFile(t *testing.T, name, sql string) string {
	t.Helper()
	return filepath.Join(testtree.Write(t, map[string]string{name: sql}), name)
}

// Schemas with a known outcome under the default rules.
const (
	cleanSQL = `CREATE TABLE charges (
  id bigint PRIMARY KEY,
  request_id text NOT NULL
);
CREATE UNIQUE INDEX charges_request_id ON charges (request_id);
`
	// An idempotency key with a hole: nullable-key at error.
	holeSQL = `CREATE TABLE events (
  id bigint PRIMARY KEY,
  organization_id bigint NOT NULL,
  external_subscription_id bigint,
  transaction_id text NOT NULL
);
CREATE UNIQUE INDEX index_unique_transaction_id ON events (organization_id, external_subscription_id, transaction_id);
`
	// A hole in an index whose names suggest no dedupe key: nullable-key at
	// warning.
	warningSQL = `CREATE TABLE tags (
  id bigint PRIMARY KEY,
  owner_id bigint,
  name text NOT NULL
);
CREATE UNIQUE INDEX tags_owner_name ON tags (owner_id, name);
`
	// Unique when present: optional-unique at info.
	infoSQL = `CREATE TABLE users (
  id bigint PRIMARY KEY,
  email text
);
CREATE UNIQUE INDEX users_email ON users (email);
`
	brokenSQL = `CREATE TABEL oops (id int);
`
)

func assertCode(t *testing.T, r result, want int) {
	t.Helper()
	if r.code != want {
		t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, want, r.stdout, r.stder)
	}
}

func assertContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

func assertLacks(t *testing.T, what, got string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(got, w) {
			t.Errorf("%s contains %q:\n%s", what, w, got)
		}
	}
}
