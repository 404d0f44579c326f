package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"
)

// The shapes of issue 24 in which lint once passed without reading the real
// schema, each a tree under testdata/inputs (its README says which).

const inputs = "../testdata/inputs/"

// accountDoc is the part of the JSON report these tests read.
type accountDoc struct {
	Findings []struct {
		Rule     string `json:"rule"`
		Object   string `json:"object"`
		Position struct {
			File string `json:"file"`
		} `json:"position"`
	} `json:"findings"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
	Notes []struct {
		Message string `json:"message"`
	} `json:"notes"`
	Inputs []struct {
		Path string `json:"path"`
	} `json:"inputs"`
	Account struct {
		Replayed      int            `json:"replayed"`
		Skipped       int            `json:"skipped"`
		Unread        int            `json:"unread"`
		Trees         int            `json:"trees"`
		SkippedByKind map[string]int `json:"skipped_by_kind"`
		Paths         []struct {
			Path    string `json:"path"`
			Partial bool   `json:"partial"`
			Files   []struct {
				Path   string `json:"path"`
				Status string `json:"status"`
				Tree   string `json:"tree"`
				Order  int    `json:"order"`
				Kind   string `json:"kind"`
				Reason string `json:"reason"`
			} `json:"files"`
		} `json:"paths"`
	} `json:"input_account"`
}

func lintAccount(t *testing.T, wantCode int, args ...string) accountDoc {
	t.Helper()
	res := run(t, append([]string{"lint", "--format", "json"}, args...)...)
	if res.code != wantCode {
		t.Fatalf("lint %v exited %d, want %d\nstdout:\n%s\nstderr:\n%s", args, res.code, wantCode, res.stdout, res.stder)
	}
	var doc accountDoc
	if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil {
		t.Fatalf("lint %v: not JSON: %v\n%s", args, err, res.stdout)
	}
	return doc
}

// status returns what the account says of the file whose path ends in
// suffix, or "" when it does not list it.
func (d accountDoc) status(suffix string) (status, kind, tree string) {
	for _, p := range d.Account.Paths {
		for _, f := range p.Files {
			if strings.HasSuffix(filepath.ToSlash(f.Path), suffix) {
				return f.Status, f.Kind, f.Tree
			}
		}
	}
	return "", "", ""
}

func (d accountDoc) messages() string {
	var b strings.Builder
	for _, e := range d.Errors {
		b.WriteString("error: " + e.Message + "\n")
	}
	for _, n := range d.Notes {
		b.WriteString("note: " + n.Message + "\n")
	}
	return b.String()
}

// Shape 1: a loose views.sql beside a migrations folder. The folder is the
// tree; views.sql is named as not read.
func TestAccountLooseFileBesideMigrations(t *testing.T) {
	dir := inputs + "loose-file"
	doc := lintAccount(t, 1, dir)
	if len(doc.Findings) != 1 || !strings.HasSuffix(doc.Findings[0].Position.File, "000013_payments.up.sql") {
		t.Errorf("findings = %+v; want the hole in 000013_payments.up.sql", doc.Findings)
	}
	a := doc.Account
	if a.Replayed != 13 || a.Skipped != 13 || a.SkippedByKind["down"] != 13 || a.Unread != 1 || a.Trees != 1 {
		t.Errorf("account = %d replayed, %d skipped %v, %d unread, %d trees; want 13, 13 down, 1, 1", a.Replayed, a.Skipped, a.SkippedByKind, a.Unread, a.Trees)
	}
	if st, _, _ := doc.status("loose-file/views.sql"); st != "unread" {
		t.Errorf("views.sql is %q, want unread", st)
	}
	if st, _, tree := doc.status("000013_payments.up.sql"); st != "replayed" || !strings.HasSuffix(tree, "loose-file/migrations") {
		t.Errorf("000013_payments.up.sql is %q in %q, want replayed in loose-file/migrations", st, tree)
	}
	if !strings.Contains(doc.messages(), "its own 1 .sql file not read as a tree: "+dir+"/migrations below it holds 13") {
		t.Errorf("no note on the loose file:\n%s", doc.messages())
	}
	text := run(t, "lint", dir)
	if !strings.Contains(text.stdout, "\nread 13 files in 1 tree; skipped 13 (13 down); not read 1\n") {
		t.Errorf("text report has no account line:\n%s", text.stdout)
	}
}

// Shape 1, the migrations deeper than lint looks: the run fails, naming
// them and the ways to read them; --allow-partial (or allow-partial: in
// the configuration) accepts it; the folder named reads them.
func TestAccountMostlyUnreadFails(t *testing.T) {
	dir := inputs + "too-deep"
	doc := lintAccount(t, 2, dir)
	msg := doc.messages()
	for _, want := range []string{
		"error: " + dir + ": 9 of its 10 schema files were not read (1 replayed): " + dir + "/stores/main/migrations/001_s1.sql, ",
		" and 4 more; to read them, give lint the folder that holds them (idemcheck lint " + dir + "/stores/main/migrations, read as plain",
		"or accept a partial read with --allow-partial (allow-partial: true in .idemcheck.yaml)",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
	if len(doc.Account.Paths) != 1 || !doc.Account.Paths[0].Partial || doc.Account.Unread != 9 || doc.Account.Replayed != 1 {
		t.Errorf("account: %+v", doc.Account)
	}
	if st, _, _ := doc.status("009_payments.sql"); st != "unread" {
		t.Errorf("009_payments.sql is %q, want unread", st)
	}

	accepted := lintAccount(t, 0, "--allow-partial", dir)
	if len(accepted.Errors) != 0 || !strings.Contains(accepted.messages(), "accepted by --allow-partial") {
		t.Errorf("--allow-partial:\n%s", accepted.messages())
	}
	cfg := filepath.Join(t.TempDir(), "idemcheck.yaml")
	if err := os.WriteFile(cfg, []byte("allow-partial: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lintAccount(t, 0, "--config", cfg, dir)

	whole := lintAccount(t, 1, dir+"/stores/main/migrations")
	if len(whole.Findings) != 1 || whole.Account.Replayed != 9 || whole.Account.Unread != 0 {
		t.Errorf("the folder named: %d findings, account %+v", len(whole.Findings), whole.Account)
	}

	// The CI formats carry it: a GitHub notice, a Code Quality entry, and
	// in SARIF a notification and the files as artifacts.
	gh := run(t, "lint", "--format", "github", dir)
	if !strings.Contains(gh.stdout, "::notice title=idemcheck input::idemcheck input: read 1 file in 1 tree; not read 9\n") ||
		!strings.Contains(gh.stdout, "::error title=idemcheck could not read this input::"+dir+": 9 of its 10 schema files were not read") {
		t.Errorf("github:\n%s", gh.stdout)
	}
	gl := run(t, "lint", "--format", "gitlab", dir)
	if !strings.Contains(gl.stdout, `"check_name": "idemcheck/input"`) || !strings.Contains(gl.stdout, "not read 9") {
		t.Errorf("gitlab:\n%s", gl.stdout)
	}
	sarif := run(t, "lint", "--format", "sarif", dir)
	var log struct {
		Runs []struct {
			Invocations []struct {
				Notifications []struct {
					Message struct{ Text string } `json:"message"`
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
			Artifacts []struct {
				Roles      []string          `json:"roles"`
				Properties map[string]any    `json:"properties"`
				Location   map[string]string `json:"location"`
			} `json:"artifacts"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarif.stdout), &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0]
	found := false
	for _, n := range r.Invocations[0].Notifications {
		found = found || n.Message.Text == "idemcheck input: read 1 file in 1 tree; not read 9."
	}
	replayed, unread := 0, 0
	for _, a := range r.Artifacts {
		switch a.Properties["idemcheck/status"] {
		case "replayed":
			if len(a.Roles) == 1 && a.Roles[0] == "analysisTarget" {
				replayed++
			}
		case "unread":
			unread++
		}
	}
	if !found || replayed != 1 || unread != 9 {
		t.Errorf("sarif: notification %v, %d replayed analysis targets, %d unread artifacts", found, replayed, unread)
	}
}

// Shape 2: a Rails db/ with scenic views and fx functions. schema.rb is
// the schema; the definitions are not a migration tree.
func TestAccountRailsScenic(t *testing.T) {
	dir := inputs + "rails-scenic/db"
	doc := lintAccount(t, 1, dir)
	if len(doc.Findings) != 1 || doc.Findings[0].Object != "public.events.index_events_unique_transaction" {
		t.Errorf("findings = %+v; want the hole in schema.rb", doc.Findings)
	}
	for _, in := range doc.Inputs {
		if strings.Contains(in.Path, "views") || strings.Contains(in.Path, "functions") {
			t.Errorf("%s read as a tree", in.Path)
		}
	}
	if st, _, _ := doc.status("db/schema.rb"); st != "replayed" {
		t.Errorf("schema.rb is %q, want replayed", st)
	}
	if st, kind, _ := doc.status("db/views/billable_events_v02.sql"); st != "skipped" || kind != "definitions" {
		t.Errorf("a scenic view is %q (%q), want skipped as definitions", st, kind)
	}
	if doc.Account.SkippedByKind["definitions"] != 4 || doc.Account.Unread != 0 {
		t.Errorf("account: %+v", doc.Account)
	}
	// From the app's root too.
	root := lintAccount(t, 1, inputs+"rails-scenic")
	if len(root.Findings) != 1 {
		t.Errorf("from the root: %+v", root.Findings)
	}
}

// Shape 3: one file of a multi-file Prisma schema is read with the rest,
// whether the folder is a prismaSchemaFolder or named by prisma.config.ts;
// a file whose models refer to models found nowhere is an input error.
func TestAccountPrismaMultiFile(t *testing.T) {
	for _, file := range []string{"prisma-folder/prisma/schema/post.prisma", "prisma-config/prisma/schema/user.prisma"} {
		doc := lintAccount(t, 1, inputs+file)
		objects := map[string]bool{}
		for _, f := range doc.Findings {
			objects[f.Object] = true
		}
		if !objects["public.User.User_orgId_email_key"] || !objects["public.Post.Post_tenantId_slug_key"] {
			t.Errorf("%s: findings %+v; want User's and Post's", file, doc.Findings)
		}
		if doc.Account.Replayed != 3 || doc.Account.Trees != 1 {
			t.Errorf("%s: account %+v; want 3 files in 1 tree", file, doc.Account)
		}
		if !strings.Contains(doc.messages(), "is one file of the schema") {
			t.Errorf("%s: no note:\n%s", file, doc.messages())
		}
	}
	doc := lintAccount(t, 2, inputs+"prisma-missing/post.prisma")
	if !strings.Contains(doc.messages(), "error: "+inputs+"prisma-missing/post.prisma: its models refer to User, defined in none of the schema's files") {
		t.Errorf("no error naming User:\n%s", doc.messages())
	}
}

// Shape 4: .sql.postgres files are SQL in a folder too; another database's
// file is skipped, and a folder of only such files names it.
func TestAccountDialectFiles(t *testing.T) {
	doc := lintAccount(t, 1, inputs+"dialects/dumps")
	if len(doc.Findings) != 1 || !strings.HasSuffix(doc.Findings[0].Position.File, "schema.sql.postgres") {
		t.Errorf("findings = %+v; want the hole in schema.sql.postgres", doc.Findings)
	}
	if st, kind, _ := doc.status("schema.sql.sqlite"); st != "skipped" || kind != "other dialect" {
		t.Errorf("schema.sql.sqlite is %q (%q)", st, kind)
	}
	only := lintAccount(t, 2, inputs+"dialects/sqlite-only")
	if !strings.Contains(only.messages(), "no SQL migrations found (looked 2 directories down); it holds 1 SQL file, none of them replayed: "+
		inputs+"dialects/sqlite-only/schema.sql.sqlite (for sqlite)") {
		t.Errorf("the error does not name the file:\n%s", only.messages())
	}
}

// Shape 6: a folder one level above migrations/ with test fixtures,
// testdata and templates: only the migrations are the tree; the others are
// skipped with a note, and read when given directly.
func TestAccountParentFolder(t *testing.T) {
	dir := inputs + "parent"
	doc := lintAccount(t, 1, dir)
	if len(doc.Findings) != 1 || !strings.HasSuffix(doc.Findings[0].Position.File, "00010_payments.sql") {
		t.Errorf("findings = %+v; want only the migrations' hole", doc.Findings)
	}
	if len(doc.Inputs) != 1 || !strings.HasSuffix(doc.Inputs[0].Path, "parent/migrations") {
		t.Errorf("inputs = %+v; want parent/migrations alone", doc.Inputs)
	}
	a := doc.Account
	if a.Replayed != 10 || a.SkippedByKind["test fixture"] != 14 || a.SkippedByKind["no DDL"] != 1 || a.Unread != 0 {
		t.Errorf("account = %+v", a)
	}
	for _, want := range []string{
		"note: skipped " + dir + "/testdata: a test-fixture, example or template folder (6 schema files); give it to lint directly to read it",
		"note: skipped " + dir + "/templates: a test-fixture, example or template folder (2 schema files)",
	} {
		if !strings.Contains(doc.messages(), want) {
			t.Errorf("no note %q:\n%s", want, doc.messages())
		}
	}
	direct := lintAccount(t, 1, dir+"/testdata")
	if len(direct.Findings) != 6 {
		t.Errorf("testdata given directly: %d findings, want 6", len(direct.Findings))
	}
}

// A file the configuration's globs leave out is skipped as excluded, not
// counted as unread.
func TestAccountExcludedByConfig(t *testing.T) {
	dir, err := filepath.Abs(inputs + "loose-file")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), ".idemcheck.yaml")
	if err := os.WriteFile(cfg, []byte("exclude:\n  - \"**/000013_payments.up.sql\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := lintAccount(t, 0, "--config", cfg, dir)
	if st, kind, _ := doc.status("000013_payments.up.sql"); st != "skipped" || kind != "excluded" {
		t.Errorf("the excluded file is %q (%q)", st, kind)
	}
	if len(doc.Findings) != 0 || doc.Account.Replayed != 12 {
		t.Errorf("%d findings, %d replayed", len(doc.Findings), doc.Account.Replayed)
	}
}

// A Rails structure.sql is the whole schema: folders beside it with more
// files (another database's migrations, scenic views) do not win over it,
// and the account names them with their reasons.
func TestAccountDumpBesideOtherFolders(t *testing.T) {
	files := map[string]string{"db/structure.sql": holeSQL}
	for _, n := range []string{"01_events.sql", "02_logs.sql", "03_more.sql"} {
		files["db/clickhouse_migrate/cloud/"+n] = "CREATE TABLE x (id UInt64) ENGINE = MergeTree ORDER BY id;\n"
	}
	files["db/views/a_v01.sql"] = "SELECT 1;\n"
	files["db/views/b_v01.sql"] = "SELECT 2;\n"
	dir := testtree.Write(t, files)
	doc := lintAccount(t, 1, filepath.Join(dir, "db"))
	a := doc.Account
	if a.Replayed != 1 || a.SkippedByKind["other dialect"] != 3 || a.SkippedByKind["definitions"] != 2 || a.Unread != 0 || len(doc.Errors) != 0 {
		t.Errorf("account %+v, errors %+v", a, doc.Errors)
	}
	if len(doc.Findings) == 0 {
		t.Error("structure.sql's hole is not reported")
	}
}

// A Hasura project (config.yaml): hasura migrate apply runs only
// migrations/<database>/<version>_<name>/up.sql. Its seeds, its copies of
// views and its one-off scripts are skipped as not applied, never replayed
// as trees of their own; config.yaml's migrations_directory moves the
// migrations.
func TestAccountHasuraProject(t *testing.T) {
	dir := inputs + "hasura"
	doc := lintAccount(t, 1, dir)
	if len(doc.Inputs) != 1 || doc.Inputs[0].Path != dir+"/migrations/default" {
		t.Errorf("inputs = %+v; want %s/migrations/default alone", doc.Inputs, dir)
	}
	if len(doc.Findings) != 1 || !strings.HasSuffix(doc.Findings[0].Position.File, "1700000000002_create_table_public_payments/up.sql") {
		t.Errorf("findings = %+v; want the migration's hole", doc.Findings)
	}
	a := doc.Account
	if a.Replayed != 3 || a.SkippedByKind["down"] != 3 || a.SkippedByKind["not applied"] != 4 || a.Unread != 0 || a.Trees != 1 {
		t.Errorf("account = %+v; want 3 replayed, 3 down, 4 not applied", a)
	}
	reasons := map[string]string{}
	for _, p := range a.Paths {
		for _, f := range p.Files {
			reasons[f.Path] = f.Status + " " + f.Kind + ": " + f.Reason
		}
	}
	notMigration := "skipped not applied: not a Hasura migration: hasura migrate apply runs only " + dir +
		"/migrations/<database>/<version>_<name>/up.sql (" + dir + "/config.yaml)"
	for file, want := range map[string]string{
		dir + "/views/order_totals.sql":                  notMigration,
		dir + "/views/payment_keys.sql":                  notMigration,
		dir + "/scripts/backfill.sql":                    notMigration,
		dir + "/seeds/default/1700000000100_staging.sql": "skipped not applied: a Hasura seed: hasura seed apply loads it, hasura migrate apply does not (" + dir + "/config.yaml)",
	} {
		if reasons[file] != want {
			t.Errorf("%s: %q, want %q", file, reasons[file], want)
		}
	}
	text := run(t, "lint", dir)
	if !strings.Contains(text.stdout, "\nread 3 files in 1 tree; skipped 7 (4 not applied, 3 down)\n") {
		t.Errorf("text report's account line:\n%s", text.stdout)
	}
	// A folder of it given directly is read.
	views := lintAccount(t, 0, dir+"/views")
	if views.Account.Replayed != 2 {
		t.Errorf("views given directly: %+v", views.Account)
	}

	// migrations_directory names the folder, nested too: the folders
	// beside it on the way are not migrations.
	moved := testtree.Write(t, map[string]string{
		"config.yaml": "version: 3\nendpoint: http://localhost:8080\nmigrations_directory: db/migrations\nseeds_directory: db/seeds\n",
		"db/migrations/default/1700000000001_init/up.sql": holeSQL,
		"db/seeds/default/1700000000100_seed.sql":         "CREATE TABLE seeded (id bigint);\n",
		"db/dump.sql":                         "CREATE TABLE dumped (id bigint);\n",
		"migrations/1700000000001_old/up.sql": "CREATE TABLE old_copy (id bigint);\n",
	})
	m := lintAccount(t, 1, moved)
	if m.Account.Replayed != 1 || m.Account.SkippedByKind["not applied"] != 3 || m.Account.Unread != 0 {
		t.Errorf("migrations_directory: account %+v", m.Account)
	}
	if st, _, tree := m.status("db/migrations/default/1700000000001_init/up.sql"); st != "replayed" || !strings.HasSuffix(tree, "db/migrations/default") {
		t.Errorf("the configured folder's migration is %q in %q", st, tree)
	}
	for _, p := range m.Account.Paths {
		for _, f := range p.Files {
			if strings.HasSuffix(f.Path, "1700000000100_seed.sql") && !strings.HasPrefix(f.Reason, "a Hasura seed") {
				t.Errorf("the configured seeds folder's file: %q", f.Reason)
			}
		}
	}
}

// A layout's manifest is in the account, skipped as a manifest (read for
// the tree's files and order, never replayed itself): temporal's
// manifest.json, Prisma's migration_lock.toml, sqitch's plan.
func TestAccountManifests(t *testing.T) {
	temporal := lintAccount(t, 1, "../testdata/layouts/temporal/versioned")
	if st, kind, tree := temporal.status("v1.10/manifest.json"); st != "skipped" || kind != "manifest" || !strings.HasSuffix(tree, "temporal/versioned") {
		t.Errorf("temporal's manifest.json is %q (%q) in %q, want skipped as the tree's manifest", st, kind, tree)
	}
	if n := temporal.Account.SkippedByKind["manifest"]; n != 4 {
		t.Errorf("%d manifests in the account, want 4 (one per version folder)", n)
	}
	one := lintAccount(t, 0, "../testdata/layouts/temporal/versioned/v1.10")
	if st, kind, _ := one.status("v1.10/manifest.json"); st != "skipped" || kind != "manifest" {
		t.Errorf("one version folder: manifest.json is %q (%q)", st, kind)
	}

	prisma := lintAccount(t, 1, inputs+"prisma-paths/prisma/migrations")
	if st, kind, _ := prisma.status("migrations/migration_lock.toml"); st != "skipped" || kind != "manifest" {
		t.Errorf("migration_lock.toml is %q (%q), want skipped as a manifest", st, kind)
	}
	for _, p := range prisma.Account.Paths {
		for _, f := range p.Files {
			if strings.HasSuffix(f.Path, "migration_lock.toml") && !strings.Contains(f.Reason, "Prisma's lock file") {
				t.Errorf("migration_lock.toml's reason: %q", f.Reason)
			}
		}
	}

	sqitch := lintAccount(t, 0, "../testdata/layouts/sqitch")
	if st, kind, _ := sqitch.status("sqitch/sqitch.plan"); st != "skipped" || kind != "manifest" {
		t.Errorf("sqitch.plan is %q (%q), want skipped as a manifest", st, kind)
	}

	// manifest.json elsewhere (a web app's) is not schema.
	web := testtree.Write(t, map[string]string{
		"public/manifest.json":    `{"name": "app"}`,
		"migrations/001_init.sql": holeSQL,
	})
	if st, _, _ := lintAccount(t, 1, web).status("manifest.json"); st != "" {
		t.Errorf("a web app's manifest.json is in the account as %q", st)
	}
}

// A Prisma config's schema or migrations path lint cannot use is said,
// never silently replaced by what discovery finds: a path that does not
// exist (with another folder read in its place, or a schema) is an input
// error naming the path and the config; a migrations folder not made yet
// is a note.
func TestAccountPrismaConfigPaths(t *testing.T) {
	dir := inputs + "prisma-paths"
	doc := lintAccount(t, 2, dir)
	want := "error: " + dir + "/prisma.config.ts: its migrations path names " + dir + "/db/migrations, which does not exist; " +
		dir + "/prisma/migrations beside the schema is not the folder Prisma applies with this config: fix the setting, or name the migrations folder to lint"
	if !strings.Contains(doc.messages(), want) {
		t.Errorf("no error naming the configured path:\n%s\nwant %s", doc.messages(), want)
	}
	if len(doc.Findings) != 1 {
		t.Errorf("the rest is still checked: %+v", doc.Findings)
	}
	schema := "datasource db {\n  provider = \"postgresql\"\n}\n\nmodel A {\n  id Int @id\n}\n"
	missingSchema := testtree.Write(t, map[string]string{
		"prisma.config.ts":     "export default { schema: 'prisma/app.prisma' }\n",
		"prisma/schema.prisma": schema,
	})
	ms := lintAccount(t, 2, missingSchema)
	if !strings.Contains(ms.messages(), "prisma.config.ts: its schema setting names "+filepath.Join(missingSchema, "prisma", "app.prisma")+", which does not exist") {
		t.Errorf("no error naming the configured schema:\n%s", ms.messages())
	}
	notYet := testtree.Write(t, map[string]string{
		"prisma.config.ts":     "export default { schema: 'prisma/schema.prisma', migrations: { path: 'db/migrations' } }\n",
		"prisma/schema.prisma": schema,
	})
	ny := lintAccount(t, 0, notYet)
	if !strings.Contains(ny.messages(), "note: "+filepath.Join(notYet, "prisma.config.ts")+": its migrations path names "+
		filepath.Join(notYet, "db", "migrations")+", which does not exist yet (prisma migrate dev makes it)") {
		t.Errorf("no note on the migrations folder not made yet:\n%s", ny.messages())
	}
	expr := testtree.Write(t, map[string]string{
		"prisma.config.ts":     "export default { schema: 'prisma/schema.prisma', migrations: { path: env('MIGRATIONS') } }\n",
		"prisma/schema.prisma": schema,
	})
	if ex := lintAccount(t, 0, expr); !strings.Contains(ex.messages(), "its migrations path is not a string literal or path.join of literals") {
		t.Errorf("no note on the expression:\n%s", ex.messages())
	}
}

// The folder a partial read's error tells the user to give is the deepest
// one holding the most unread files: a full schema plus deltas too deep to
// be found is named by its schema folder (read as schema-deltas), not by
// one of its delta folders.
func TestAccountPartialNamesTheTreeFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "project", "src"), os.DirFS("../testdata/layouts/schema-deltas")); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(dir, "project")
	doc := lintAccount(t, 2, project)
	want := "to read them, give lint the folder that holds them (idemcheck lint " + filepath.Join(project, "src", "storage", "schema") +
		", read as schema-deltas; --layout schema-deltas to say so)"
	if !strings.Contains(doc.messages(), want) {
		t.Errorf("the error does not name the schema folder:\n%s\nwant %s", doc.messages(), want)
	}
	whole := lintAccount(t, 0, filepath.Join(project, "src", "storage", "schema"))
	if whole.Account.Unread != 0 || whole.Account.Replayed == 0 {
		t.Errorf("the folder named: %+v", whole.Account)
	}
}
