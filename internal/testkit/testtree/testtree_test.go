package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := Write(t, map[string]string{"a.sql": "one", "db/migrations/1_x.up.sql": "two"})
	for name, want := range map[string]string{"a.sql": "one", "db/migrations/1_x.up.sql": "two"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
}
