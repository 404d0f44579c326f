// Package ent is generated from ./schema by go generate ./ent (not kept in
// the repository: the recipe test generates it in a copy).
package ent

//go:generate go run -mod=mod entgo.io/ent/cmd/ent generate --feature sql/versioned-migration ./schema
