// Package models is a small GORM app with the hole: namespace is a pointer,
// so GORM makes it nullable, and it is part of a unique index.
package models

// Charge is one charge claimed by an idempotent request.
type Charge struct {
	ID        uint64
	AccountID int64   `gorm:"not null;uniqueIndex:charges_unique_claim"`
	Kind      string  `gorm:"size:32;not null;uniqueIndex:charges_unique_claim"`
	Address   string  `gorm:"size:255;not null;uniqueIndex:charges_unique_claim"`
	Namespace *string `gorm:"size:64;uniqueIndex:charges_unique_claim"`
}

// All lists the models in the order their tables are created.
var All = []any{&Charge{}}
