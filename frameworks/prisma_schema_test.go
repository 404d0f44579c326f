package frameworks

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/internal/testkit/testtree"
)

// A Prisma config is TypeScript: the schema and migrations settings are
// read when they are string literals or path.join / path.resolve of
// literals; any other expression is not evaluated, and a note says so.
func TestPrismaConfigPathForms(t *testing.T) {
	for _, c := range []struct {
		expr, want string
		ok         bool
	}{
		{`"prisma/schema",`, "prisma/schema", true},
		{`'prisma/schema'`, "prisma/schema", true},
		{"`prisma/schema`", "prisma/schema", true},
		{`path.join("prisma", "schema"),`, "prisma/schema", true},
		{`path.join(__dirname, 'db', "schema.prisma")`, "db/schema.prisma", true},
		{`path.resolve(import.meta.dirname, "prisma")`, "prisma", true},
		{`join("a",` + "\n" + `  "b")`, "a/b", true},
		{`process.env.PRISMA_SCHEMA`, "", false},
		{`path.join(base, "schema")`, "", false},
		{"`${dir}/schema`", "", false},
	} {
		got, ok := configPath(c.expr)
		if ok != c.ok || ok && filepath.ToSlash(got) != c.want {
			t.Errorf("configPath(%q) = %q, %v; want %q, %v", c.expr, got, ok, c.want, c.ok)
		}
	}

	dir := testtree.Write(t, map[string]string{
		"prisma.config.ts": "export default defineConfig({\n  schema: process.env.SCHEMA,\n})\n",
		"prisma/a.prisma":  "model A {\n  id Int @id\n}\n",
	})
	p, _, note := schemaConfig(filepath.Join(dir, "prisma"))
	if p != "" || !strings.Contains(note, "its schema setting is not a string literal or path.join of literals") {
		t.Errorf("schemaConfig = %q, note %q", p, note)
	}
	pkg := testtree.Write(t, map[string]string{
		"package.json":           `{"name": "x", "prisma": {"schema": "db/schema"}}`,
		"db/schema/a.prisma":     "model A {\n  id Int @id\n  b B?\n}\n",
		"db/schema/b.prisma":     "model B {\n  id Int @id\n  aId Int @unique\n  a A @relation(fields: [aId], references: [id])\n}\n",
		"db/schema/those.prisma": "datasource db {\n  provider = \"postgresql\"\n  url = env(\"U\")\n}\n",
	})
	files, note, _ := wholePrismaSchema(filepath.Join(pkg, "db", "schema", "a.prisma"))
	if len(files) != 3 || !strings.Contains(note, "package.json") {
		t.Errorf("package.json prisma.schema: %v, %q", files, note)
	}
	if missing := UnresolvedPrismaTypes([]string{filepath.Join(pkg, "db", "schema", "a.prisma")}); missing["B"] == "" || len(missing) != 1 {
		t.Errorf("unresolved = %v; want B", missing)
	}
	if missing := UnresolvedPrismaTypes(files); len(missing) != 0 {
		t.Errorf("unresolved in the whole schema = %v", missing)
	}
}
