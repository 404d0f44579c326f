package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// docsRef is a comment's pointer into docs/.
	docsRef = regexp.MustCompile(`docs/[a-z0-9-]+\.md`)
	// designRef is a pointer to a document by an upper-case file name.
	// The design documents named that way live outside the repository, and
	// a maintainer cannot follow them; README.md and CHANGELOG.md are here.
	designRef = regexp.MustCompile(`\b[A-Z][A-Z_]+\.md\b`)
	// mdLink is a relative Markdown link target.
	mdLink = regexp.MustCompile(`\]\(([^)#:\s]+)(#[^)]*)?\)`)
)

// TestDocsReferencesResolve fails when Go code points at a design document
// that is not in the repository or at a docs/ page that does not exist,
// when the README or a page in docs/ cites such a design document, and when
// one of them links to a file that is not there.
func TestDocsReferencesResolve(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, ref := range docsRef.FindAllString(line, -1) {
				if _, err := os.Stat(ref); err != nil {
					t.Errorf("%s:%d: points at %s, which does not exist", path, i+1, ref)
				}
			}
		}
		checkNoDesignRefs(t, path, data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob("docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/ (%v)", err)
	}
	for _, page := range append(pages, "README.md") {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		checkNoDesignRefs(t, page, data)
		for _, m := range mdLink.FindAllStringSubmatch(string(data), -1) {
			target := filepath.Join(filepath.Dir(page), m[1])
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links to %s, which does not exist", page, m[1])
			}
		}
	}
}

// checkNoDesignRefs reports every line of path that cites a document by an
// upper-case name other than README.md and CHANGELOG.md.
func checkNoDesignRefs(t *testing.T, path string, data []byte) {
	t.Helper()
	for i, line := range strings.Split(string(data), "\n") {
		for _, ref := range designRef.FindAllString(line, -1) {
			if _, err := os.Stat(ref); err == nil {
				continue // a file of the repository's own (THIRD_PARTY.md)
			}
			if ref != "README.md" && ref != "CHANGELOG.md" {
				t.Errorf("%s:%d: cites %s, which is not in the repository; point at docs/ instead", path, i+1, ref)
			}
		}
	}
}

// TestREADMELinksEveryPage: the README is the front door to docs/, so each
// page there is linked from it, and every link to a heading (#anchor) on
// the README or a page lands on a heading or an <a id> that exists.
func TestREADMELinksEveryPage(t *testing.T) {
	readme := readFile(t, "README.md")
	pages, err := filepath.Glob("docs/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/ (%v)", err)
	}
	for _, page := range pages {
		if !strings.Contains(readme, "]("+page+")") && !strings.Contains(readme, "]("+page+"#") {
			t.Errorf("README.md does not link %s", page)
		}
	}
	for _, page := range append(pages, "README.md") {
		for _, m := range anchorLink.FindAllStringSubmatch(readFile(t, page), -1) {
			target := page
			if m[1] != "" {
				target = filepath.Join(filepath.Dir(page), m[1])
			}
			if _, err := os.Stat(target); err != nil {
				continue // TestDocsReferencesResolve names it
			}
			if !pageAnchors(t, target)[m[2]] {
				t.Errorf("%s links to %s#%s, and %s has no such heading or anchor", page, m[1], m[2], target)
			}
		}
	}
}

var (
	anchorLink = regexp.MustCompile(`\]\(([^)#:\s]*)#([^)\s]+)\)`)
	heading    = regexp.MustCompile(`^#+ (.*)`)
	anchorID   = regexp.MustCompile(`<a id="([^"]+)"`)
	notSlug    = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// pageAnchors are the anchors GitHub gives a page's headings (lower case,
// punctuation dropped, spaces to hyphens) and its <a id> anchors.
func pageAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	fence := false
	for _, line := range strings.Split(readFile(t, path), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if m := heading.FindStringSubmatch(line); m != nil && !fence {
			slug := notSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), "")
			out[strings.ReplaceAll(slug, " ", "-")] = true
		}
		for _, m := range anchorID.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
	}
	return out
}
