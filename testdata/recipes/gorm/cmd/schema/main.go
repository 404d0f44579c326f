// Prints the SQL that GORM's Migrator would run to create every model's
// table, without a database: DryRun builds each statement and hands it to
// the logger instead of sending it. `go run ./cmd/schema > schema.sql`
// gives idemcheck lint a file to read.
package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idemcheck/idemcheck/testdata/recipes/gorm/models"
)

// printSQL is a GORM logger that prints each statement and nothing else.
type printSQL struct{}

func (printSQL) LogMode(logger.LogLevel) logger.Interface { return printSQL{} }
func (printSQL) Info(context.Context, string, ...any)     {}
func (printSQL) Warn(context.Context, string, ...any)     {}
func (printSQL) Error(context.Context, string, ...any)    {}
func (printSQL) Trace(_ context.Context, _ time.Time, sql func() (string, int64), _ error) {
	s, _ := sql()
	fmt.Printf("%s;\n", s)
}

func main() {
	// No DSN and no ping: in DryRun mode nothing is sent.
	db, err := gorm.Open(postgres.Open(""), &gorm.Config{DryRun: true, DisableAutomaticPing: true, Logger: printSQL{}})
	if err != nil {
		log.Fatalln(err)
	}
	if err := db.Migrator().CreateTable(models.All...); err != nil {
		log.Fatalln(err)
	}
}
