package frameworks

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"
)

const configSchema = `datasource db {
  provider = "postgresql"
}

model Account {
  id        Int     @id @default(autoincrement())
  kind      String
  address   String
  namespace String?

  @@unique([kind, address, namespace])
}
`

// The migrations folder comes from the project's Prisma config
// (migrations: { path }), relative to the config: the SQL there is read as
// the schema's own, and a fix's SQL migration names that folder. Without a
// config it is prisma/migrations beside the schema.
func TestPrismaMigrationsFromConfig(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"prisma.config.ts": "import { defineConfig } from 'prisma/config'\nexport default defineConfig({\n" +
			"  schema: 'prisma/schema.prisma',\n  migrations: {\n    path: 'db/migrations',\n  },\n})\n",
		"prisma/schema.prisma":                            configSchema,
		"db/migrations/20240101000000_init/migration.sql": "SELECT 1;\n",
	})
	schema := filepath.Join(dir, "prisma", "schema.prisma")
	m, shown, configured := prismaMigrations(schema)
	if !configured || m != filepath.Join(dir, "db", "migrations") || shown != "db/migrations" {
		t.Errorf("prismaMigrations = %q, %q, %v; want the config's db/migrations", m, shown, configured)
	}
	f := Found{Paths: []string{schema}, Kind: Prisma}
	if !f.Beside(filepath.Join(dir, "db", "migrations")) {
		t.Error("the configured migrations folder is not beside the schema")
	}
	src, err := Read(schema)
	if err != nil {
		t.Fatal(err)
	}
	findings, _, _ := lintSource(t, src, 16)
	text := ""
	for _, fd := range findings {
		for _, fx := range fd.Fixes {
			text += fx.SQL + "\n"
		}
	}
	if !strings.Contains(text, "this is db/migrations/<timestamp>_") || strings.Contains(text, "prisma/migrations") {
		t.Errorf("fixes do not name db/migrations:\n%s", text)
	}
	// The partial index's caveat says only what prisma showed: 6.19's
	// migrate diff writes no such index from the schema, 7.10.1 validates
	// the partialIndexes form; nothing about what migrate dev "will" do.
	caveats := ""
	for _, fd := range findings {
		for _, fx := range fd.Fixes {
			caveats += fx.Caveat + "\n"
		}
	}
	if !strings.Contains(caveats, "the SQL prisma migrate diff writes from the schema does not have it") ||
		!strings.Contains(caveats, "prisma 7.10.1 validates this") || strings.Contains(caveats, "will propose") {
		t.Errorf("the partial-index caveat:\n%s", caveats)
	}

	// No config: beside the schema.
	plain := testtree.Write(t, map[string]string{"prisma/schema.prisma": configSchema})
	if _, shown, configured := prismaMigrations(filepath.Join(plain, "prisma", "schema.prisma")); configured || shown != "prisma/migrations" {
		t.Errorf("without a config: %q, %v; want prisma/migrations", shown, configured)
	}
}
