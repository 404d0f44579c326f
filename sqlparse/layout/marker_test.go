package layout

import "testing"

// The markers are found in any case, at the start of a line only, and a
// file that merely mentions one in a comment or a string is not taken for
// that tool's.
func TestContentLayoutMarkers(t *testing.T) {
	cases := []struct {
		text string
		want Layout
	}{
		{"-- +goose Up\nCREATE TABLE t (id int);\n", LayoutGoose},
		{"-- +GOOSE UP\nCREATE TABLE t (id int);\n", LayoutGoose},
		{"  \t-- +goose up\nCREATE TABLE t (id int);\n", LayoutGoose},
		{"SELECT '-- +goose Up';\n", ""},
		{"CREATE TABLE t (id int); -- +goose Up\n", ""},
		{"-- -- +goose up\n", ""},
		{"-- Migrate:Up\nCREATE TABLE t (id int);\n-- migrate:down\n", LayoutDbmate},
		{"-- +migrate Up\nCREATE TABLE t (id int);\n", LayoutSQLMigrate},
		{"CREATE TABLE t (id int);\n---- Create above / drop below ----\nDROP TABLE t;\n", LayoutTern},
		{"--Liquibase formatted SQL\n--changeset a:1\nCREATE TABLE t (id int);\n", LayoutLiquibase},
		{"\n--liquibase formatted sql\n", ""},
		{"--\n-- PostgreSQL database dump\n--\n", LayoutDump},
		{"-- postgresql database dump\n", ""}, // pg_dump writes its header in one case
		{"-- +goo", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := contentLayout([]byte(c.text)); got != c.want {
			t.Errorf("contentLayout(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestIndexFold(t *testing.T) {
	cases := []struct {
		s, marker string
		want      int
	}{
		{"xx-- +GoOsE up", "-- +goose up", 2},
		{"-- +goos", "-- +goose up", -1},
		{"-- a -- +goose UP", "-- +goose up", 5},
		{"abc", "b", 1},
		{"ABC", "c", 2},
		{"", "-", -1},
	}
	for _, c := range cases {
		if got := indexFold([]byte(c.s), c.marker); got != c.want {
			t.Errorf("indexFold(%q, %q) = %d, want %d", c.s, c.marker, got, c.want)
		}
	}
}
