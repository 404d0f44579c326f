package frameworks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse"
)

// Prisma's migrations live where the project's Prisma config says
// (prisma.config.ts, migrations: { path: "..." }), relative to that file,
// or else in a migrations folder beside the schema (beside prisma/schema/
// for a folder of .prisma files). The config is TypeScript; only the
// literal path is read, and a path that is not a string literal is not
// followed.

// prismaConfigNames are the names Prisma looks for its config under.
var prismaConfigNames = []string{"prisma.config.ts", "prisma.config.mts", "prisma.config.js", "prisma.config.mjs",
	"prisma.config.cts", "prisma.config.cjs", ".config/prisma.ts"}

// migrationsSetting finds the path of the migrations setting; the
// expression after "path:" is read by configPath.
var migrationsSetting = regexp.MustCompile(`(?s)migrations\s*:\s*\{[^}]*?\bpath\s*:\s*`)

// schemaSetting finds the schema setting (a file, or a folder of .prisma
// files).
var schemaSetting = regexp.MustCompile(`(?m)(?:^|[{,\s])schema\s*:\s*`)

// stringLiteral is a TypeScript string literal without interpolation.
var stringLiteral = regexp.MustCompile(`^(?:'([^'\\\n]*)'|"([^"\\\n]*)"|` + "`([^`$\\\\]*)`" + `)`)

// joinCall is path.join( or join( or path.resolve( opening an expression.
var joinCall = regexp.MustCompile(`^(?:path\.)?(?:join|resolve)\s*\(`)

// configPath reads the path expression at the start of expr: a string
// literal, or path.join / path.resolve of string literals and __dirname
// (the config's folder; import.meta.dirname too). ok is false when expr is
// some other expression (a variable, env()), which is not evaluated.
func configPath(expr string) (p string, ok bool) {
	if m := stringLiteral.FindStringSubmatch(expr); m != nil {
		return m[1] + m[2] + m[3], true
	}
	loc := joinCall.FindStringIndex(expr)
	if loc == nil {
		return "", false
	}
	rest := expr[loc[1]:]
	var parts []string
	for {
		rest = strings.TrimLeft(rest, " \t\r\n")
		switch {
		case strings.HasPrefix(rest, ")"):
			if len(parts) == 0 {
				return "", false
			}
			return filepath.Join(parts...), true
		case strings.HasPrefix(rest, "__dirname"):
			rest = rest[len("__dirname"):]
		case strings.HasPrefix(rest, "import.meta.dirname"):
			rest = rest[len("import.meta.dirname"):]
		default:
			m := stringLiteral.FindStringSubmatch(rest)
			if m == nil {
				return "", false
			}
			parts = append(parts, m[1]+m[2]+m[3])
			rest = rest[len(m[0]):]
		}
		rest = strings.TrimLeft(rest, " \t\r\n")
		rest = strings.TrimPrefix(rest, ",")
	}
}

// configSetting reads one setting of a Prisma config's text: found is set
// when the setting is there, ok when its value could be read.
func configSetting(data []byte, setting *regexp.Regexp) (p string, found, ok bool) {
	loc := setting.FindIndex(data)
	if loc == nil {
		return "", false, false
	}
	p, ok = configPath(string(data[loc[1]:min(len(data), loc[1]+400)]))
	return filepath.Clean(p), true, ok
}

// prismaMigrations returns the migrations folder of the Prisma schema whose
// first file is schemaPath, and the path to show in a fix ("prisma/migrations",
// as the project's own config or layout names it). configured is set when a
// Prisma config gave it. The folder need not exist yet.
func prismaMigrations(schemaPath string) (dir, shown string, configured bool) {
	schemaDir := filepath.Dir(schemaPath)
	base := schemaDir
	if filepath.Base(schemaDir) == "schema" {
		base = filepath.Dir(schemaDir)
	}
	// The config sits at the project's root: the schema's directory or one
	// of the three above it (prisma/schema.prisma beside package.json).
	for d, i := base, 0; i < 4; d, i = filepath.Dir(d), i+1 {
		if _, root, data, found := readPrismaConfig(d); found {
			if p, _, ok := configSetting(data, migrationsSetting); ok {
				return filepath.Join(root, p), filepath.ToSlash(p), true
			}
			rel, err := filepath.Rel(root, filepath.Join(base, "migrations"))
			if err != nil {
				rel = "migrations"
			}
			return filepath.Join(base, "migrations"), filepath.ToSlash(rel), false
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	shown = filepath.ToSlash(filepath.Join(filepath.Base(base), "migrations"))
	if filepath.Base(base) == "." || filepath.Base(base) == string(filepath.Separator) {
		shown = "migrations"
	}
	return filepath.Join(base, "migrations"), shown, false
}

// schemaConfig is where a project's Prisma setup says its schema is: the
// schema setting of a Prisma config in dir or one of the three folders
// above it, or else package.json's prisma.schema. path is "" when none
// says; note is set when a config has a schema setting idemcheck cannot
// read (an expression that is not a literal path).
func schemaConfig(dir string) (path, from, note string) {
	for d, i := dir, 0; i < 4; d, i = filepath.Dir(d), i+1 {
		if cfg, root, data, ok := readPrismaConfig(d); ok {
			p, found, ok := configSetting(data, schemaSetting)
			switch {
			case found && ok:
				return filepath.Join(root, p), cfg, ""
			case found:
				return "", cfg, fmt.Sprintf("%s: its schema setting is not a string literal or path.join of literals, so idemcheck cannot follow it; name the schema file or folder to lint", cfg)
			}
		}
		if data, err := os.ReadFile(filepath.Join(d, "package.json")); err == nil {
			var pkg struct {
				Prisma struct {
					Schema string `json:"schema"`
				} `json:"prisma"`
			}
			if json.Unmarshal(data, &pkg) == nil && pkg.Prisma.Schema != "" {
				return filepath.Join(d, filepath.Clean(pkg.Prisma.Schema)), filepath.Join(d, "package.json"), ""
			}
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return "", "", ""
}

// readPrismaConfig reads the first Prisma config in dir, in the order of
// prismaConfigNames, and the folder its paths are relative to (dir itself
// for .config/prisma.ts).
func readPrismaConfig(dir string) (cfg, root string, data []byte, ok bool) {
	for _, name := range prismaConfigNames {
		cfg := filepath.Join(dir, name)
		data, err := os.ReadFile(cfg)
		if err != nil {
			continue
		}
		root := filepath.Dir(cfg)
		if name == ".config/prisma.ts" {
			root = dir
		}
		return cfg, root, data, true
	}
	return "", "", nil, false
}

// configProblems says what lint cannot use of the Prisma config that
// governs the schema whose first file is schemaPath (the config
// prismaMigrations and schemaConfig read), so that a setting never falls
// back silently to discovery: a schema setting naming a path that is not
// there or cannot be read is an input error; so is a migrations path that
// cannot be read, or that is not there while a migrations folder beside
// the schema would be read in its place. A migrations path that is not
// there at all (Prisma makes it on the first migrate dev) is a note, as is
// a setting that is not a literal path. cfg is the config, "" when none.
func configProblems(schemaPath string) (cfg string, diags []sqlparse.Diagnostic) {
	schemaDir := filepath.Dir(schemaPath)
	base := schemaDir
	if filepath.Base(schemaDir) == "schema" {
		base = filepath.Dir(schemaDir)
	}
	for d, i := base, 0; i < 4; d, i = filepath.Dir(d), i+1 {
		cfg, root, data, found := readPrismaConfig(d)
		if !found {
			if d == filepath.Dir(d) {
				break
			}
			continue
		}
		note := func(msg string) { diags = append(diags, sqlparse.Diagnostic{Level: sqlparse.Note, Message: msg}) }
		fail := func(msg string) { diags = append(diags, sqlparse.Diagnostic{Level: sqlparse.Error, Message: msg}) }
		if p, found, ok := configSetting(data, schemaSetting); found && ok {
			at := filepath.Join(root, p)
			if _, err := os.Stat(at); err != nil {
				fail(fmt.Sprintf("%s: its schema setting names %s, which %s; fix the setting, or name the schema file or folder to lint",
					cfg, at, statProblem(err)))
			}
		}
		p, found, ok := configSetting(data, migrationsSetting)
		switch {
		case !found:
		case !ok:
			note(fmt.Sprintf("%s: its migrations path is not a string literal or path.join of literals, so idemcheck cannot follow it; "+
				"migrations are looked for beside the schema, or name the migrations folder to lint", cfg))
		default:
			at := filepath.Join(root, p)
			info, err := os.Stat(at)
			if err == nil {
				if !info.IsDir() {
					fail(fmt.Sprintf("%s: its migrations path names %s, which is not a folder; fix the setting, or name the migrations folder to lint", cfg, at))
				} else if _, err := os.ReadDir(at); err != nil {
					fail(fmt.Sprintf("%s: its migrations path names %s, which cannot be read: %v", cfg, at, unwrapPath(err)))
				}
				break
			}
			if !errors.Is(err, fs.ErrNotExist) {
				fail(fmt.Sprintf("%s: its migrations path names %s, which %s", cfg, at, statProblem(err)))
				break
			}
			if other := besideMigrations(schemaPath); other != "" {
				fail(fmt.Sprintf("%s: its migrations path names %s, which does not exist; %s beside the schema is not the folder "+
					"Prisma applies with this config: fix the setting, or name the migrations folder to lint", cfg, at, other))
				break
			}
			note(fmt.Sprintf("%s: its migrations path names %s, which does not exist yet (prisma migrate dev makes it): "+
				"the schema is read with no migrations beside it", cfg, at))
		}
		return cfg, diags
	}
	return "", nil
}

// besideMigrations is the migrations folder beside the schema whose first
// file is schemaPath (inside its folder, or beside a schema/ folder), or "".
func besideMigrations(schemaPath string) string {
	dir := filepath.Dir(schemaPath)
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if m := filepath.Join(d, "migrations"); isDir(m) {
			return m
		}
		if filepath.Base(dir) != "schema" {
			break
		}
	}
	return ""
}

// statProblem says why a path could not be looked at.
func statProblem(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "does not exist"
	}
	return fmt.Sprintf("cannot be read: %v", unwrapPath(err))
}
