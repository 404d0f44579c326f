// Creates the schema in DATABASE_URL with Ent's automatic migration.
package main

import (
	"context"
	"log"
	"os"

	_ "github.com/lib/pq"

	"github.com/idemcheck/idemcheck/testdata/recipes/ent/ent"
)

func main() {
	client, err := ent.Open("postgres", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatalln(err)
	}
	defer client.Close()
	if err := client.Schema.Create(context.Background()); err != nil {
		log.Fatalln(err)
	}
}
