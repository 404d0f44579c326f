// Package testtree writes small file trees for tests.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates files (slash-separated path -> content) under a new
// temporary directory, making the directories they need, and returns the
// directory. Any error fails the test.
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
