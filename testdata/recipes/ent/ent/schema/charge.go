// Package schema is a small Ent app with the hole: namespace is Optional,
// so Ent makes it nullable, and it is part of a unique index.
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"
)

// Charge is one charge claimed by an idempotent request.
type Charge struct{ ent.Schema }

// Fields of the charges table.
func (Charge) Fields() []ent.Field {
	return []ent.Field{
		field.Int64("account_id"),
		field.String("kind").MaxLen(32),
		field.String("address").MaxLen(255),
		field.String("namespace").MaxLen(64).Optional().Nillable(),
	}
}

// Indexes of the charges table.
func (Charge) Indexes() []ent.Index {
	return []ent.Index{
		index.Fields("account_id", "kind", "address", "namespace").Unique().StorageKey("charges_unique_claim"),
	}
}
