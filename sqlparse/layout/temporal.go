package layout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// temporal-sql-tool (Temporal's schema tool) keeps one folder per schema
// version, versioned/v1.10/, each with a manifest.json whose
// SchemaUpdateCqlFiles names the SQL files of that version in the order
// they run. Versions run in version order, part by part (1.9 before 1.10).

// LayoutTemporal is temporal-sql-tool's versioned/v{version}/manifest.json.
const LayoutTemporal Layout = "temporal"

const temporalManifest = "manifest.json"

var temporal = &Def{
	Name:      LayoutTemporal,
	Tool:      "Temporal's versioned folders",
	Files:     "`versioned/v{version}/manifest.json` (temporal-sql-tool)",
	UpPart:    "the files the manifest names",
	Order:     "version part by part (`v1.9` before `v1.10`), then manifest order",
	Signature: isTemporalDir,
	List: func(t treeDir) ([]File, []SkippedFile, []scan.Diagnostic) {
		return listTemporal(t.dir, t.display, t.sc)
	},
}

// temporalVersionDir is the tool's own pattern for version folders.
var temporalVersionDir = regexp.MustCompile(`^v([0-9]+(?:\.[0-9]+)*)$`)

// temporalManifestFile is the part of manifest.json idemcheck reads.
type temporalManifestFile struct {
	CurrVersion          string
	SchemaUpdateCqlFiles []string
}

// isTemporalDir reports whether dir holds version folders with manifests,
// or is one version folder itself.
func isTemporalDir(dir string, sc dirScan) bool {
	if sc.others[temporalManifest] && len(sc.sqlFiles) > 0 {
		data, err := sc.readFile(filepath.Join(dir, temporalManifest))
		return err == nil && bytes.Contains(data, []byte("SchemaUpdateCqlFiles"))
	}
	for _, sub := range sc.subdirs {
		if temporalVersionDir.MatchString(sub) && fileExists(filepath.Join(dir, sub, temporalManifest)) {
			return true
		}
	}
	return false
}

// listTemporal takes every version folder's files in manifest order, the
// folders in version order. A manifest that cannot be read, or names a file
// that is not there, is an error; the other versions are still used.
func listTemporal(dir, display string, sc dirScan) ([]File, []SkippedFile, []scan.Diagnostic) {
	type version struct{ sub, number string }
	var versions []version
	if sc.others[temporalManifest] {
		// One version folder named on its own.
		versions = append(versions, version{sub: "."})
	}
	for _, sub := range sc.subdirs {
		if m := temporalVersionDir.FindStringSubmatch(sub); m != nil && !sc.others[temporalManifest] {
			versions = append(versions, version{sub: sub, number: m[1]})
		}
	}
	slices.SortStableFunc(versions, func(a, b version) int { return compareDotted(a.number, b.number) })

	var files []File
	var skipped []SkippedFile
	var diags []scan.Diagnostic
	for i, v := range versions {
		if i > 0 && v.number != "" && compareDotted(versions[i-1].number, v.number) == 0 {
			diags = append(diags, scan.Diagnostic{Level: scan.Error, Message: fmt.Sprintf(
				"duplicate migration version %s: %s and %s both claim it; %s is not used, rename one of them",
				v.number, filepath.Join(display, versions[i-1].sub), filepath.Join(display, v.sub), filepath.Join(display, v.sub))})
			continue
		}
		vf, vs, vd := listTemporalVersion(filepath.Join(dir, v.sub), filepath.Join(display, v.sub), v.number, sc.root)
		files = append(files, vf...)
		skipped = append(skipped, vs...)
		diags = append(diags, vd...)
	}
	return files, skipped, diags
}

// listTemporalVersion reads one version folder's manifest.
func listTemporalVersion(dir, display, number, root string) ([]File, []SkippedFile, []scan.Diagnostic) {
	manifestPath := filepath.Join(display, temporalManifest)
	data, err := readInTree(root, filepath.Join(dir, temporalManifest))
	if err != nil {
		return nil, nil, []scan.Diagnostic{pathError(manifestPath, err)}
	}
	var m temporalManifestFile
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, []scan.Diagnostic{{Level: scan.Error, Message: fmt.Sprintf("%s: cannot read it as JSON: %v", manifestPath, err)}}
	}
	if number == "" {
		number = strings.TrimPrefix(m.CurrVersion, "v")
	}
	var files []File
	var diags []scan.Diagnostic
	listed := map[string]bool{}
	for _, name := range m.SchemaUpdateCqlFiles {
		rel := filepath.Clean(name)
		if !filepath.IsLocal(rel) || !fileExists(filepath.Join(dir, rel)) {
			diags = append(diags, scan.Diagnostic{Level: scan.Error, Message: fmt.Sprintf(
				"%s names %s, which does not exist", manifestPath, name)})
			continue
		}
		listed[rel] = true
		f := newFile(display, rel, LayoutTemporal)
		f.Version, f.Name = number, strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))
		files = append(files, f)
	}
	var skipped []SkippedFile
	if sc, err := scanDir(dir, root); err == nil {
		for _, n := range sc.sqlFiles {
			if !listed[n] {
				skipped = append(skipped, skip(display, n, fmt.Sprintf(
					"not named in %s, so temporal-sql-tool does not run it", filepath.Join(filepath.Base(display), temporalManifest))))
			}
		}
	}
	return files, skipped, diags
}
