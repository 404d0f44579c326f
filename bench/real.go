package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemcheck/idemcheck/sqlparse/layout"
)

// realCorpus describes a file or tree given with -corpus: what lint
// reads, the files psql replays (those discovery finds, in its order), and
// their sizes. It is measured as the generated corpora are.
func realCorpus(path string) (*corpus, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, err
	}
	trees, _ := layout.Discover([]string{abs}, layout.DiscoverOptions{})
	c := &corpus{Path: abs}
	for _, t := range trees {
		for _, f := range t.Files {
			info, err := os.Stat(f.Path)
			if err != nil {
				return nil, err
			}
			c.Files = append(c.Files, f.Path)
			c.Bytes += info.Size()
			c.Largest = max(c.Largest, info.Size())
		}
	}
	if len(c.Files) == 0 {
		return nil, fmt.Errorf("-corpus %s: no SQL file found", path)
	}
	c.Name = strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	c.Title = filepath.Base(abs)
	if c.Title == "structure.sql" || c.Title == "schema.sql" {
		// db/structure.sql says more than structure.sql alone.
		c.Title = filepath.Join(filepath.Base(filepath.Dir(abs)), c.Title)
	}
	return c, nil
}

// corpusList is the repeatable -corpus flag.
type corpusList []string

func (l *corpusList) String() string { return strings.Join(*l, ",") }

func (l *corpusList) Set(s string) error {
	*l = append(*l, s)
	return nil
}
