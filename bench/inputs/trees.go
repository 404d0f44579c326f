package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// tree is one tree the harness lints: its directory under -root, the path
// given to lint (relative to it), lint's flags, the shape of issue 24 it
// stands for, and its runner's rule. runner returns the files the runner
// applies, relative to the lint path ("." for the path itself), in its
// order, and how many migrations it runs that are not SQL.
type tree struct {
	name, path, shape string
	// dir is the tree's directory under -root when it is not name (a
	// second run on one tree); flags may name paths replayed before path.
	dir    string
	flags  []string
	runner func(abs string) (files []string, notSQL int, err error)
}

// trees: the developers' corpora (docs/corpora/corpora.tsv, the judged
// commits) and the trees fetched for issue 24, each at the commit named.
//
//	synapse  element-hq/synapse a58ad44eb0ce   synapse/storage/schema: full_schemas/72 + delta/73..94 (shape 5; .sql.postgres, shape 1's second case)
//	moped    cityofaustin/atd-moped 0bcd9461454d  moped-database: Hasura migrations beside views/, seeds/ and recipes/ .sql (shape 1)
//	upcase   thoughtbot/upcase 7cc02b090962    db: Rails schema.rb with scenic's db/views (shape 2)
//	rallly   lukevella/rallly c629b3148024     packages/database: multi-file Prisma schema, prisma.config.ts schema: path.join(__dirname, "prisma") (shape 3)
//	bilan    ABC-TransitionBasCarbone/bilan-carbone 949af9c48dff  packages/db-common: Prisma schema in nested folders, migrations inside prisma/schema/, named by prisma.config.ts and package.json (shape 3)
//	contentdata alphagov/content-data-api ee9773268ffa  db: Rails schema.rb with 48 scenic views, materialized (shape 2)
//	synapse-mo matrix-org/synapse be65a8ec0195   synapse/storage/schema: the pre-fork repository, SCHEMA_VERSION 83 (shape 5)
//	aptrust  APTrust/registry 7c08491091d4     db: a loose schema.sql beside migrations/ and legacy/ (shape 1); db/testutil.go loads schema.sql, then migrations/*.sql
var trees = []tree{
	{name: "auth", path: "migrations", shape: "pop, templated", flags: []string{"--var", "Namespace=auth"}, runner: inDir(`^\d+_.*\.up\.sql$`, "")},
	{name: "temporal", path: "schema/postgresql/v12/temporal/versioned", shape: "version folders", runner: temporalManifests},
	{name: "convoy", path: "sql", shape: "sql-migrate", runner: inDir(`\.sql$`, "")},
	{name: "danbooru", path: "db/structure.sql", shape: "dump", runner: single},
	{name: "gisia", path: "db/structure.sql", shape: "dump", runner: single},
	{name: "lago", path: "db/structure.sql", shape: "dump", runner: single},
	{name: "trigger", path: "internal-packages/database/prisma/migrations", shape: "Prisma migrations", runner: subdirsWith("migration.sql")},
	{name: "crates", path: "migrations", shape: "diesel", runner: subdirsWith("up.sql")},
	{name: "hatchet", path: "cmd/hatchet-migrate/migrate/migrations", shape: "goose", runner: inDir(`^\d+_.*\.sql$`, `^\d+_.*\.go$`)},
	{name: "conductor", path: "postgres-persistence/src/main/resources/db/migration_postgres", shape: "Flyway", runner: inDir(`^(V\d[^_]*__.*|R__.*)\.sql$`, "")},
	{name: "openfn", path: ".", shape: "sqitch", runner: sqitchPlan},
	{name: "boundary", path: "internal/db/schema/migrations/oss/postgres", shape: "version folders", runner: inSubdirs(`\.up\.sql$`)},
	{name: "ifme", path: "db/schema.rb", shape: "schema.rb", runner: single},
	{name: "growstuff", path: "db/schema.rb", shape: "schema.rb", runner: single},
	{name: "homeward", path: "db/schema.rb", shape: "schema.rb", runner: single},
	{name: "langfuse", path: "packages/shared/prisma/schema.prisma", shape: "Prisma schema", runner: single},
	{name: "hoppscotch", path: "packages/hoppscotch-backend/prisma/schema.prisma", shape: "Prisma schema", runner: single},
	{name: "papermark", path: "prisma/schema", shape: "Prisma schema folder", runner: everyUnder(`\.prisma$`)},
	{name: "synapse", path: "synapse/storage/schema", shape: "5 (and 1: .sql.postgres)", runner: synapseRunner},
	{name: "moped", path: "moped-database", shape: "1 (Hasura)", runner: hasuraMigrations},
	{name: "upcase", path: "db", shape: "2 (scenic)", runner: fixed("schema.rb")},
	{name: "rallly", path: "packages/database", shape: "3 (Prisma folder)", runner: subdirsWith("migration.sql", "prisma", "migrations")},
	{name: "bilan", path: "packages/db-common", shape: "3 (Prisma folders)", runner: subdirsWith("migration.sql", "prisma", "schema", "migrations")},
	{name: "contentdata", path: "db", shape: "2 (scenic)", runner: fixed("schema.rb")},
	{name: "synapse-mo", path: "synapse/storage/schema", shape: "5", runner: synapseRunner},
	{name: "aptrust", path: "db", shape: "1 (schema.sql beside migrations/)", runner: then(fixed("schema.sql"), under("migrations", inDir(`\.sql$`, "")))},
	{name: "aptrust-2", dir: "aptrust", path: "db/migrations", flags: []string{"db/schema.sql"}, shape: "1, both paths named", runner: then(fixed("../schema.sql"), inDir(`\.sql$`, ""))},
}

// single: the runner loads the one file lint is given.
func single(string) ([]string, int, error) { return []string{"."}, 0, nil }

// fixed: the runner loads these files of the path.
func fixed(files ...string) func(string) ([]string, int, error) {
	return func(string) ([]string, int, error) { return files, 0, nil }
}

// then: the files of a, then those of b.
func then(a, b func(string) ([]string, int, error)) func(string) ([]string, int, error) {
	return func(abs string) ([]string, int, error) {
		fa, na, err := a(abs)
		if err != nil {
			return nil, 0, err
		}
		fb, nb, err := b(abs)
		return append(fa, fb...), na + nb, err
	}
}

// under: rule r applied to the folder sub of the path, its files named
// from the path.
func under(sub string, r func(string) ([]string, int, error)) func(string) ([]string, int, error) {
	return func(abs string) ([]string, int, error) {
		files, n, err := r(filepath.Join(abs, sub))
		for i, f := range files {
			files[i] = filepath.Join(sub, f)
		}
		return files, n, err
	}
}

// inDir: the files of the directory itself whose names match sql, in name
// order; those matching other are migrations the runner runs that are not
// SQL.
func inDir(sql, other string) func(string) ([]string, int, error) {
	re := regexp.MustCompile(sql)
	var not *regexp.Regexp
	if other != "" {
		not = regexp.MustCompile(other)
	}
	return func(abs string) ([]string, int, error) {
		entries, err := os.ReadDir(abs)
		if err != nil {
			return nil, 0, err
		}
		var files []string
		n := 0
		for _, e := range entries {
			switch {
			case e.IsDir():
			case re.MatchString(e.Name()):
				files = append(files, e.Name())
			case not != nil && not.MatchString(e.Name()):
				n++
			}
		}
		return files, n, nil
	}
}

// inSubdirs: the matching files of each immediate subdirectory.
func inSubdirs(sql string) func(string) ([]string, int, error) {
	re := regexp.MustCompile(sql)
	return func(abs string) ([]string, int, error) {
		dirs, err := os.ReadDir(abs)
		if err != nil {
			return nil, 0, err
		}
		var files []string
		for _, d := range dirs {
			if !d.IsDir() {
				continue
			}
			entries, err := os.ReadDir(filepath.Join(abs, d.Name()))
			if err != nil {
				return nil, 0, err
			}
			for _, e := range entries {
				if !e.IsDir() && re.MatchString(e.Name()) {
					files = append(files, filepath.Join(d.Name(), e.Name()))
				}
			}
		}
		return files, 0, nil
	}
}

// subdirsWith: one file of that name in each immediate subdirectory of
// the path joined with under (Prisma's migration.sql, diesel's up.sql).
func subdirsWith(name string, under ...string) func(string) ([]string, int, error) {
	return func(abs string) ([]string, int, error) {
		base := filepath.Join(under...)
		dirs, err := os.ReadDir(filepath.Join(abs, base))
		if err != nil {
			return nil, 0, err
		}
		var files []string
		for _, d := range dirs {
			if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
				continue
			}
			f := filepath.Join(base, d.Name(), name)
			if _, err := os.Stat(filepath.Join(abs, f)); err == nil {
				files = append(files, f)
			}
		}
		return files, 0, nil
	}
}

// everyUnder: every matching file below the path (Prisma reads every
// .prisma file of a schema folder and its subfolders).
func everyUnder(pattern string) func(string) ([]string, int, error) {
	re := regexp.MustCompile(pattern)
	return func(abs string) ([]string, int, error) {
		var files []string
		err := filepath.WalkDir(abs, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && re.MatchString(d.Name()) {
				rel, _ := filepath.Rel(abs, p)
				files = append(files, rel)
			}
			return err
		})
		return files, 0, err
	}
}

// temporalManifests: temporal-sql-tool's update-schema applies, in each
// version folder, the files its manifest.json lists.
func temporalManifests(abs string) ([]string, int, error) {
	dirs, err := os.ReadDir(abs)
	if err != nil {
		return nil, 0, err
	}
	var files []string
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(abs, d.Name(), "manifest.json"))
		if err != nil {
			continue
		}
		var m struct{ SchemaUpdateCqlFiles []string }
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, 0, fmt.Errorf("%s/manifest.json: %v", d.Name(), err)
		}
		for _, f := range m.SchemaUpdateCqlFiles {
			files = append(files, filepath.Join(d.Name(), f))
		}
	}
	return files, 0, nil
}

// sqitchPlan: sqitch deploys deploy/<change>.sql for each change of
// sqitch.plan (lines that are not pragmas, tags or comments).
func sqitchPlan(abs string) ([]string, int, error) {
	data, err := os.ReadFile(filepath.Join(abs, "sqitch.plan"))
	if err != nil {
		return nil, 0, err
	}
	var files []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "%") || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "@") {
			continue
		}
		files = append(files, filepath.Join("deploy", strings.Fields(line)[0]+".sql"))
	}
	return files, 0, nil
}

// hasuraMigrations: hasura migrate apply runs migrations/<database>/<version>_<name>/up.sql.
func hasuraMigrations(abs string) ([]string, int, error) {
	dbs, err := os.ReadDir(filepath.Join(abs, "migrations"))
	if err != nil {
		return nil, 0, err
	}
	var files []string
	for _, db := range dbs {
		if !db.IsDir() {
			continue
		}
		sub, _, err := subdirsWith("up.sql", "migrations", db.Name())(abs)
		if err != nil {
			return nil, 0, err
		}
		files = append(files, sub...)
	}
	return files, 0, nil
}

var schemaVersion = regexp.MustCompile(`(?m)^SCHEMA_VERSION = (\d+)`)

// synapseRunner is Synapse's prepare_database for a new PostgreSQL
// database holding the main and state stores: common/schema_version.sql;
// then, for the highest N of common/full_schemas at most SCHEMA_VERSION,
// the files of common/, main/ and state/full_schemas/N ending .sql or
// .sql.postgres, sorted by file name; then, for each version N+1 to
// SCHEMA_VERSION, the delta/<v> files of the three stores, sorted by name,
// .sql and .sql.postgres applied and .py modules run (not SQL).
func synapseRunner(abs string) ([]string, int, error) {
	init, err := os.ReadFile(filepath.Join(abs, "__init__.py"))
	if err != nil {
		return nil, 0, err
	}
	m := schemaVersion.FindSubmatch(init)
	if m == nil {
		return nil, 0, fmt.Errorf("no SCHEMA_VERSION in __init__.py")
	}
	target, _ := strconv.Atoi(string(m[1]))
	full := -1
	entries, err := os.ReadDir(filepath.Join(abs, "common", "full_schemas"))
	if err != nil {
		return nil, 0, err
	}
	for _, e := range entries {
		if v, err := strconv.Atoi(e.Name()); err == nil && v <= target && v > full {
			full = v
		}
	}
	stores := []string{"common", "main", "state"}
	files := []string{filepath.Join("common", "schema_version.sql")}
	notSQL := 0
	collect := func(sub ...string) {
		type entry struct{ name, path string }
		var list []entry
		for _, s := range stores {
			dir := filepath.Join(append([]string{s}, sub...)...)
			es, _ := os.ReadDir(filepath.Join(abs, dir))
			for _, e := range es {
				list = append(list, entry{e.Name(), filepath.Join(dir, e.Name())})
			}
		}
		sort.Slice(list, func(i, j int) bool {
			if list[i].name != list[j].name {
				return list[i].name < list[j].name
			}
			return list[i].path < list[j].path
		})
		for _, e := range list {
			switch {
			case strings.HasSuffix(e.name, ".sql") || strings.HasSuffix(e.name, ".sql.postgres"):
				files = append(files, e.path)
			case strings.HasSuffix(e.name, ".py"):
				notSQL++
			}
		}
	}
	collect("full_schemas", strconv.Itoa(full))
	for v := full + 1; v <= target; v++ {
		collect("delta", strconv.Itoa(v))
	}
	return files, notSQL, nil
}
