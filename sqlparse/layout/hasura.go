package layout

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// A Hasura project (the folder `hasura init` makes) holds config.yaml and a
// migrations folder: `hasura migrate apply` runs
// migrations/<database>/<version>_<name>/up.sql (config v3; config v2 has
// no database level), version by version, and nothing else. The project's
// other SQL (seeds, which `hasura seed apply` loads; copies of views kept
// for review; one-off scripts) is not a migration. Discovery reads only the
// migrations folder of a project, which is read in the dirs layout, and
// the census lists the project's other schema-like files as not applied.
// config.yaml's migrations_directory and seeds_directory move the two
// folders (defaults "migrations" and "seeds").

// hasuraConfig is the Hasura CLI's project file.
const hasuraConfig = "config.yaml"

// hasuraProject is a Hasura project folder, as its config.yaml says.
type hasuraProject struct {
	config     string // path of config.yaml, as shown
	migrations string // the migrations folder's name in the project
	seeds      string // the seeds folder's name
}

// hasuraVersion is config.yaml's top-level version key (1, 2 or 3), and
// hasuraKey one of the keys only the Hasura CLI's config has.
var (
	hasuraVersion = regexp.MustCompile(`(?m)^version:\s*['"]?[123]['"]?\s*$`)
	hasuraKey     = regexp.MustCompile(`(?m)^(endpoint|admin_secret|metadata_directory|migrations_directory|seeds_directory|actions):`)
	hasuraDirKey  = regexp.MustCompile(`(?m)^(migrations_directory|seeds_directory):\s*['"]?([^'"#\r\n]*?)['"]?\s*(#.*)?$`)
)

// hasuraProjectAt reports whether dir (scanned as sc, shown as display) is
// a Hasura project: a config.yaml with the CLI's version and keys, beside
// the migrations folder it names.
func hasuraProjectAt(dir, display string, sc dirScan) (hasuraProject, bool) {
	if !sc.others[hasuraConfig] {
		return hasuraProject{}, false
	}
	data, err := sc.readFile(filepath.Join(dir, hasuraConfig))
	if err != nil || !hasuraVersion.Match(data) || !hasuraKey.Match(data) {
		return hasuraProject{}, false
	}
	p := hasuraProject{config: filepath.Join(display, hasuraConfig), migrations: "migrations", seeds: "seeds"}
	for _, m := range hasuraDirKey.FindAllSubmatch(data, -1) {
		v := filepath.Clean(strings.TrimSpace(string(m[2])))
		if v == "" || v == "." || !filepath.IsLocal(v) {
			continue
		}
		if string(m[1]) == "migrations_directory" {
			p.migrations = v
		} else {
			p.seeds = v
		}
	}
	if !hasName(sc.subdirs, firstElem(p.migrations)) {
		return hasuraProject{}, false
	}
	return p, true
}

// firstElem is the first element of a relative path.
func firstElem(p string) string {
	first, _, _ := strings.Cut(filepath.ToSlash(p), "/")
	return first
}

// within reports whether the relative path p is dir or below it.
func within(p, dir string) bool {
	p, dir = filepath.ToSlash(filepath.Clean(p)), filepath.ToSlash(filepath.Clean(dir))
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// notApplied is why a schema-like file of the project, below its folder
// sub (relative to the project; "" for the project folder itself or a
// folder on the way to the migrations), is not one of its migrations.
func (p hasuraProject) notApplied(sub string) string {
	switch {
	case sub != "" && within(sub, p.seeds):
		return fmt.Sprintf("a Hasura seed: hasura seed apply loads it, hasura migrate apply does not (%s)", p.config)
	}
	return fmt.Sprintf("not a Hasura migration: hasura migrate apply runs only %s/<database>/<version>_<name>/up.sql (%s)",
		filepath.ToSlash(filepath.Join(filepath.Dir(p.config), p.migrations)), p.config)
}
