package sqlparse

import (
	"testing"

	"github.com/idemcheck/idemcheck/catalog"
)

func TestZZProf(t *testing.T) {
	for _, p := range []string{"../bench/out/S/structure.sql"} {
		cat := catalog.New()
		r := NewReplayer(cat)
		Load([]string{p}, LoadOptions{Apply: r.Apply})
	}
}
