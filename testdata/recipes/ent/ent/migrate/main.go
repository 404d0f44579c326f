//go:build ignore

// Writes the next versioned migration of the Ent schema into
// ent/migrate/migrations, in Atlas's format, as Ent's versioned-migration
// docs describe: go run -mod=mod ent/migrate/main.go <name>. Atlas replays
// the directory on DEV_DATABASE_URL, an empty PostgreSQL database, and
// writes the difference to the schema.
package main

import (
	"context"
	"log"
	"os"

	atlas "ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
	"entgo.io/ent/dialect/sql/schema"
	_ "github.com/lib/pq"

	"github.com/idemcheck/idemcheck/testdata/recipes/ent/ent/migrate"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatalln("usage: go run -mod=mod ent/migrate/main.go <name>")
	}
	dir, err := atlas.NewLocalDir("ent/migrate/migrations")
	if err != nil {
		log.Fatalln(err)
	}
	err = migrate.NamedDiff(context.Background(), os.Getenv("DEV_DATABASE_URL"), os.Args[1],
		schema.WithDir(dir),
		schema.WithMigrationMode(schema.ModeReplay),
		schema.WithDialect(dialect.Postgres),
		schema.WithFormatter(atlas.DefaultFormatter),
	)
	if err != nil {
		log.Fatalln(err)
	}
}
