// Migrates DATABASE_URL the way a GORM app does at startup: AutoMigrate.
package main

import (
	"log"
	"os"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/idemcheck/idemcheck/testdata/recipes/gorm/models"
)

func main() {
	db, err := gorm.Open(postgres.Open(os.Getenv("DATABASE_URL")), &gorm.Config{})
	if err != nil {
		log.Fatalln(err)
	}
	if err := db.AutoMigrate(models.All...); err != nil {
		log.Fatalln(err)
	}
}
