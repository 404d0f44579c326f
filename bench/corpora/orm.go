package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// A corpus with orm=rails or orm=prisma is a schema file (db/schema.rb, a
// schema.prisma or a folder of .prisma files) that lint reads as it is.
// Its database is built by the framework itself, the ground truth for
// what lint translates: Debian's ActiveRecord 6.1 loads a schema.rb
// (through testdata/frameworks/rails_harness.rb, whose shims give newer
// dumps their meaning), and prisma 6.19 writes the DDL of a Prisma schema
// (migrate diff --from-empty --script, the WebAssembly engine and the pg
// adapter), which psql applies.

// rubyPath is Debian's ruby, which sees Debian's ActiveRecord.
const rubyPath = "/usr/bin/ruby"

// railsHarness is the loader the frameworks' differential test uses.
var railsHarness = filepath.Join("testdata", "frameworks", "rails_harness.rb")

// ormLoad builds the corpus's database at dsn with its framework; refused
// is what the framework reported as failing, one line each.
func ormLoad(c *corpus, dsn string) (refused []string, err error) {
	switch c.ORM {
	case "rails":
		out, err := exec.Command(rubyPath, railsHarness, "load", c.tree(), dsn).CombinedOutput()
		if err != nil {
			return []string{firstLines(strings.TrimSpace(string(out)), 5)}, nil
		}
		return nil, nil
	case "prisma":
		ddl, err := prismaDDL(c.tree(), dsn)
		if err != nil {
			return nil, err
		}
		return psqlApply(dsn, []sqlFile{{Path: "prisma migrate diff", Display: "prisma migrate diff", Text: ddl}})
	}
	return nil, fmt.Errorf("unknown orm %q (rails, prisma)", c.ORM)
}

// prismaDir holds node_modules with prisma@6.19 and @prisma/adapter-pg.
func prismaDir() string {
	if d := os.Getenv("IDEMCHECK_PRISMA_DIR"); d != "" {
		return d
	}
	return "/opt/idemcheck-prisma"
}

// prismaDDL is the SQL prisma 6.19 writes for the schema at path (a file,
// or a folder of .prisma files), in a scratch directory. A Prisma 7 schema
// names no url in its datasource; 6.19 needs one, which changes nothing in
// the DDL.
func prismaDDL(path, dsn string) (string, error) {
	dir, err := os.MkdirTemp("", "idemcheck-corpora-prisma-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	schema := "schema.prisma"
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	var files []string
	if info.IsDir() {
		schema = "schema"
		err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".prisma") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			return "", err
		}
	} else {
		files = []string{path}
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		dst := filepath.Join(dir, schema)
		if info.IsDir() {
			rel, _ := filepath.Rel(path, f)
			dst = filepath.Join(dir, schema, rel)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, withDatasourceURL(src), 0o644); err != nil {
			return "", err
		}
	}
	if err := os.Symlink(filepath.Join(prismaDir(), "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		return "", err
	}
	config := fmt.Sprintf(`import { defineConfig } from 'prisma/config'
import { PrismaPg } from '@prisma/adapter-pg'
export default defineConfig({
  engine: 'js',
  experimental: { adapter: true },
  schema: %q,
  adapter: async () => new PrismaPg({ connectionString: %q }),
})
`, schema, dsn)
	if err := os.WriteFile(filepath.Join(dir, "prisma.config.ts"), []byte(config), 0o644); err != nil {
		return "", err
	}
	// prisma checks for its query engine library, which migrate diff does
	// not use and which it would download: an empty file stands in.
	engine := filepath.Join(dir, "no-query-engine.so.node")
	if err := os.WriteFile(engine, nil, 0o644); err != nil {
		return "", err
	}
	cmd := exec.Command("node", "node_modules/prisma/build/index.js", "migrate", "diff",
		"--from-empty", "--to-schema-datamodel", schema, "--script")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dsn, "CHECKPOINT_DISABLE=1", "PRISMA_HIDE_UPDATE_MESSAGE=1",
		"PRISMA_QUERY_ENGINE_LIBRARY="+engine)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("prisma migrate diff: %v\n%s", err, firstLines(stderr.String(), 10))
	}
	return string(out), nil
}

var (
	datasourceBlock = regexp.MustCompile(`(?m)^[ \t]*datasource[ \t]+\w+[ \t]*\{[^}]*\}`)
	urlLine         = regexp.MustCompile(`(?m)^\s*url\s*=`)
)

// withDatasourceURL gives a datasource block without a url one.
func withDatasourceURL(src []byte) []byte {
	return datasourceBlock.ReplaceAllFunc(src, func(block []byte) []byte {
		if urlLine.Match(block) {
			return block
		}
		return append(block[:len(block)-1:len(block)-1], []byte("  url = env(\"DATABASE_URL\")\n}")...)
	})
}
