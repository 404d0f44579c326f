package frameworks

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse"
)

// A Prisma schema may be several files: a folder of .prisma files (the
// prismaSchemaFolder preview feature, or the schema setting of a Prisma
// config or package.json naming a folder), read as one schema. A file of
// it named on its own is read with the rest, so that its models keep the
// models they refer to.

// prismaSchemaFolder finds the preview feature in a generator block.
var prismaSchemaFolder = regexp.MustCompile(`(?s)generator\s+\w+\s*\{[^}]*previewFeatures\s*=\s*\[[^\]]*"prismaSchemaFolder"`)

// wholePrismaSchema returns the files of the multi-file schema file p
// belongs to (p first), and a note saying why they are read together; nil
// when p is a schema of its own. diags carry a config setting that could
// not be followed.
func wholePrismaSchema(p string) (files []string, note string, diags []sqlparse.Diagnostic) {
	dir := filepath.Dir(p)
	// The project's config naming a folder that holds p.
	cfgPath, from, cfgNote := schemaConfig(dir)
	if cfgNote != "" {
		diags = append(diags, sqlparse.Diagnostic{Level: sqlparse.Note, Message: cfgNote})
	}
	if cfgPath != "" && isDir(cfgPath) && within(filepath.Clean(p), []string{filepath.Clean(cfgPath)}) {
		if all := prismaFilesUnder(cfgPath); len(all) > 1 {
			return all, fmt.Sprintf("%s is one file of the schema %s names (%s): read with its %s", p, from, cfgPath, countWord(len(all)-1, "other file")), diags
		}
	}
	// The folder p sits in (or the one above, for prisma/schema.prisma with
	// models/ below it) as a schema folder: it has the preview feature, or
	// p declares no datasource and the folder's files do.
	for i, d := range []string{dir, filepath.Dir(dir)} {
		// The folder above counts only when its own .prisma files hold
		// the datasource (prisma/schema.prisma beside prisma/models/).
		if i == 1 && !declaresDatasource(prismaFilesIn(d)) {
			break
		}
		all := prismaFilesUnder(d)
		if len(all) <= 1 || !containsPath(all, p) {
			continue
		}
		reason := ""
		switch {
		case anyMatch(all, prismaSchemaFolder):
			reason = "prismaSchemaFolder"
		case !declaresDatasource([]string{p}) && declaresDatasource(all):
			reason = "its datasource is in another file"
		default:
			continue
		}
		return all, fmt.Sprintf("%s is one file of the schema in %s (%s): read with its %s", p, d, reason, countWord(len(all)-1, "other file")), diags
	}
	return nil, "", diags
}

// prismaFilesIn lists the .prisma files directly in dir.
func prismaFilesIn(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if !e.IsDir() && KindOf(e.Name()) == Prisma {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// prismaFilesUnder lists the .prisma files in dir and below it, sorted,
// leaving out the folders discovery never enters, test fixtures, and
// folders whose own files declare a datasource (another schema).
func prismaFilesUnder(dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "migrations" ||
				sqlparse.FixtureDir(d.Name()) || declaresDatasource(prismaFilesIn(path))) {
				return filepath.SkipDir
			}
			return nil
		}
		if KindOf(d.Name()) == Prisma {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func containsPath(list []string, p string) bool {
	for _, x := range list {
		if filepath.Clean(x) == filepath.Clean(p) {
			return true
		}
	}
	return false
}

// putFirst moves p to the front of files.
func putFirst(files []string, p string) []string {
	out := []string{p}
	for _, f := range files {
		if filepath.Clean(f) != filepath.Clean(p) {
			out = append(out, f)
		}
	}
	return out
}

func anyMatch(paths []string, re *regexp.Regexp) bool {
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil && re.Match(data) {
			return true
		}
	}
	return false
}

func countWord(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// prismaBlock opens a model, view, type or enum block.
var prismaBlock = regexp.MustCompile(`^\s*(model|view|type|enum)\s+(\w+)\s*\{`)

// prismaField is a field line: its name and its type.
var prismaField = regexp.MustCompile(`^\s*(\w+)\s+([A-Za-z_]\w*)(\[\])?\??`)

// prismaScalars are Prisma's own field types.
var prismaScalars = map[string]bool{"String": true, "Boolean": true, "Int": true, "BigInt": true, "Float": true,
	"Decimal": true, "DateTime": true, "Json": true, "Bytes": true, "Unsupported": true}

// UnresolvedPrismaTypes names the types the models of a Prisma schema
// (its files, paths) refer to that none of its files defines: models or
// enums in files that were not read. Each comes with the first file that
// refers to it.
func UnresolvedPrismaTypes(paths []string) map[string]string {
	defined := map[string]bool{}
	used := map[string]string{}
	var order []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		block := ""
		for _, line := range strings.Split(string(data), "\n") {
			if i := strings.Index(line, "//"); i >= 0 {
				line = line[:i]
			}
			if m := prismaBlock.FindStringSubmatch(line); m != nil {
				defined[m[2]] = true
				block = m[1]
				continue
			}
			if strings.TrimSpace(line) == "}" {
				block = ""
				continue
			}
			if block == "" || block == "enum" {
				continue
			}
			m := prismaField.FindStringSubmatch(line)
			if m == nil || strings.HasPrefix(strings.TrimSpace(line), "@@") || prismaScalars[m[2]] {
				continue
			}
			if _, ok := used[m[2]]; !ok {
				used[m[2]] = p
				order = append(order, m[2])
			}
		}
	}
	out := map[string]string{}
	for _, t := range order {
		if !defined[t] {
			out[t] = used[t]
		}
	}
	return out
}

// unresolvedError is the input error for a Prisma schema whose models
// refer to types none of its files defines; nil when there are none.
func unresolvedError(paths []string) *sqlparse.Diagnostic {
	missing := UnresolvedPrismaTypes(paths)
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, 0, len(missing))
	for n := range missing {
		names = append(names, n)
	}
	sort.Strings(names)
	where := "the schema's folder"
	if len(paths) == 1 {
		where = "the folder of .prisma files it belongs to"
	}
	return &sqlparse.Diagnostic{Level: sqlparse.Error, Message: fmt.Sprintf(
		"%s: its models refer to %s, defined in none of the schema's files that were found (%s); lint %s, or the file that defines them with it",
		missing[names[0]], strings.Join(names, ", "), countWord(len(paths), "file"), where)}
}
