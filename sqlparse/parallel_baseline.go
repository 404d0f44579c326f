package sqlparse

import (
	"time"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// ParseBaseline is the yardstick lint's speed is measured against: it reads
// and splits every file of paths, then hands every statement to
// PostgreSQL's parser on the calling goroutine, one after the other, without
// the prefilter. It returns the statements parsed and the time spent in the
// parser alone (reading and splitting are not counted).
func ParseBaseline(paths []string, layout Layout) (statements int, parsing time.Duration) {
	trees, _ := Discover(paths, DiscoverOptions{Layout: layout})
	var texts []string
	for _, t := range trees {
		for _, f := range t.Files {
			in, err := ReadUp(f)
			if err != nil {
				continue
			}
			for _, st := range Split(in).Statements {
				texts = append(texts, st.Text)
			}
		}
	}
	start := time.Now()
	for _, text := range texts {
		_, _ = pg.Parse(text) // a parse error costs the parser as much as a tree
	}
	return len(texts), time.Since(start)
}
