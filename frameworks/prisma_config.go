package frameworks

import (
	"os"
	"path/filepath"
	"regexp"
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

// migrationsPath is the literal path of the migrations setting.
var migrationsPath = regexp.MustCompile(`(?s)migrations\s*:\s*\{[^}]*?\bpath\s*:\s*['"]([^'"]+)['"]`)

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
		for _, name := range prismaConfigNames {
			cfg := filepath.Join(d, name)
			data, err := os.ReadFile(cfg)
			if err != nil {
				continue
			}
			root := filepath.Dir(cfg)
			if name == ".config/prisma.ts" {
				root = d
			}
			if m := migrationsPath.FindSubmatch(data); m != nil {
				p := filepath.Clean(string(m[1]))
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
