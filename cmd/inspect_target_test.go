package cmd

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/inspect"
)

// Shape 7 of issue 24: with no --dsn and no PG environment, libpq's
// defaults (the local socket, the login name as user and database) are a
// guess, and inspect used to audit that guess and pass on its 0 tables. Each
// command that connects refuses before it connects, with the way out in the
// message. The environment is the test's own (an empty map), so the
// refusal cannot depend on the machine's.
func TestNoDatabaseGivenExits2(t *testing.T) {
	for _, args := range [][]string{
		{"inspect"},
		{"inspect", "--data", "--format", "json"},
		// Refused before a scratch server is looked for or started.
		{"inspect", "--prove"},
		{"race", "sql", "SELECT 1"},
		{"race", "http", "--effect-sql", "SELECT count(*) FROM t WHERE k = $1", "http://127.0.0.1:1/"},
	} {
		r := run(t, args...)
		name := strings.Join(args, " ")
		if r.code != ExitUsage {
			t.Errorf("%s: exit %d, want 2\n%s%s", name, r.code, r.stdout, r.stder)
		}
		if !strings.Contains(r.stder, "no database given: use --dsn, DATABASE_URL or PGHOST/PGDATABASE") {
			t.Errorf("%s: stderr does not say no database was given:\n%s", name, r.stder)
		}
		// Text writes no report; JSON writes the document of a run that
		// could not start: the error, and no finding (docs/output-contract.md).
		if slices.Contains(args, "json") {
			var doc struct {
				Findings []json.RawMessage
				Errors   []struct{ Message string }
			}
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Findings) != 0 || len(doc.Errors) != 1 ||
				!strings.Contains(doc.Errors[0].Message, "no database given") {
				t.Errorf("%s: want a JSON document with the one error and no finding (%v):\n%s", name, err, r.stdout)
			}
		} else if r.stdout != "" {
			t.Errorf("%s: a report was written for no database:\n%s", name, r.stdout)
		}
	}
}

// Any one of DATABASE_URL and the libpq variables names a database: inspect
// then connects (here to a port nothing listens on, so the failure is a
// connection's, not the refusal).
func TestOneVariableIsEnoughToName(t *testing.T) {
	for _, k := range append([]string{"DATABASE_URL"}, inspect.DatabaseVars...) {
		env := map[string]string{k: "x"}
		if k == "DATABASE_URL" {
			env[k] = "postgres://nobody@127.0.0.1:1/nothing?connect_timeout=2"
		}
		if err := inspect.Given("", func(v string) string { return env[v] }); err != nil {
			t.Errorf("%s set: %v", k, err)
		}
	}
	if err := inspect.Given("", func(string) string { return "" }); err != inspect.ErrNoDatabase {
		t.Errorf("nothing set: %v, want ErrNoDatabase", err)
	}
	r := invocation{env: map[string]string{"DATABASE_URL": "postgres://nobody@127.0.0.1:1/nothing"}}.run(t, "inspect", "--timeout", "3s")
	if r.code != ExitUsage || strings.Contains(r.stder, "no database given") || !strings.Contains(r.stder, "port=1") {
		t.Errorf("DATABASE_URL to a closed port: exit %d\n%s", r.code, r.stder)
	}
}

// Whatever inspect reads, the report names it: the text's first line, the
// JSON's database object and SARIF's invocation properties, with host,
// port, database and user and never the password.
func TestInspectNamesTheDatabase(t *testing.T) {
	dsn := inspectTestDB(t, cleanSQL)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := strings.TrimPrefix(u.Path, "/")
	const secret = "not-a-real-password-42"
	u.User = url.UserPassword(u.User.Username(), secret)
	withPassword := u.String()

	code, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", withPassword, "--color", "never")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	first, _, _ := strings.Cut(out, "\n")
	for _, w := range []string{"database: host=" + u.Hostname(), "port=" + portOf(u), "database=" + db, "user=" + u.User.Username(), "(PostgreSQL "} {
		if !strings.Contains(first, w) {
			t.Errorf("the first line %q does not say %q", first, w)
		}
	}

	code, out, errOut = runInspectCmd(t, nil, "inspect", "--dsn", withPassword, "--format", "json")
	if code != ExitOK {
		t.Fatalf("json: exit %d\n%s%s", code, out, errOut)
	}
	var doc struct {
		Database *struct {
			Host, Database, User string
			Port                 int
			ServerVersion        string `json:"server_version"`
		} `json:"database"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if d := doc.Database; d == nil || d.Database != db || d.Host != u.Hostname() || d.User != u.User.Username() || d.Port == 0 || d.ServerVersion == "" {
		t.Errorf("json database = %+v, want %s on %s", d, db, u.Host)
	}

	code, out, errOut = runInspectCmd(t, nil, "inspect", "--dsn", withPassword, "--format", "sarif")
	if code != ExitOK {
		t.Fatalf("sarif: exit %d\n%s%s", code, out, errOut)
	}
	var log struct {
		Runs []struct {
			Invocations []struct {
				Properties struct {
					Database struct{ Database, User string } `json:"database"`
				} `json:"properties"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 || log.Runs[0].Invocations[0].Properties.Database.Database != db {
		t.Errorf("sarif: the invocation does not name database %s:\n%s", db, out)
	}
	for _, format := range []string{"text", "json", "sarif", "github", "gitlab"} {
		_, out, errOut := runInspectCmd(t, nil, "inspect", "--dsn", withPassword, "--format", format, "-v")
		if strings.Contains(out+errOut, secret) {
			t.Errorf("%s: the password is in the output", format)
		}
	}
}

// A database with no table in the schemas inspected is not a clean one:
// exit 2 with an input error naming it, and --allow-empty to accept it.
func TestInspectEmptyDatabaseExits2(t *testing.T) {
	dsn := inspectTestDB(t, "CREATE SCHEMA billing; CREATE TABLE billing.charges (id bigint PRIMARY KEY);")
	u, _ := url.Parse(dsn)
	db := strings.TrimPrefix(u.Path, "/")
	cases := []struct {
		args []string
		want int
		says string
	}{
		{[]string{"--schema", "public"}, ExitUsage, "database " + db + " on " + u.Hostname() + ":" + portOf(u) + " has no table in the schemas matching public"},
		{[]string{"--schema", "public", "--allow-empty"}, ExitOK, ""},
		{[]string{"--schema", "billing"}, ExitOK, ""},
		{nil, ExitOK, ""},
	}
	for _, c := range cases {
		args := append([]string{"inspect", "--dsn", dsn, "--color", "never"}, c.args...)
		code, out, errOut := runInspectCmd(t, nil, args...)
		if code != c.want {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.args, code, c.want, out, errOut)
		}
		if c.says != "" && (!strings.Contains(out, c.says) || !strings.Contains(out, "--allow-empty")) {
			t.Errorf("%v: the report does not say %q and how to accept it:\n%s", c.args, c.says, out)
		}
		if c.says == "" && strings.Contains(out, "nothing to audit") {
			t.Errorf("%v: an empty-database error on a run that should pass:\n%s", c.args, out)
		}
	}
	empty := inspectTestDB(t, "")
	code, out, _ := runInspectCmd(t, nil, "inspect", "--dsn", empty, "--format", "json")
	var doc struct {
		Errors []struct{ Message string } `json:"errors"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if code != ExitUsage || len(doc.Errors) != 1 || !strings.Contains(doc.Errors[0].Message, "in any schema but the system ones") {
		t.Errorf("an empty database in JSON: exit %d, errors %+v", code, doc.Errors)
	}
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	return "5432"
}
