package replay

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// cascadeScripts are what CASCADE and its absence do to the objects replay
// models. Each runs on the real server and in replay: every statement the
// server refuses must be a note with its SQLSTATE, every statement it
// accepts must replay without one, and the schemas, tables, columns,
// indexes, constraints (primary, unique, CHECK, foreign key), enums and
// domains left afterwards must be the server's.
var cascadeScripts = []struct{ name, sql string }{
	{"drop index used by a foreign key", `
CREATE TABLE accounts (id bigint NOT NULL, email text NOT NULL);
CREATE UNIQUE INDEX accounts_id ON accounts (id);
CREATE UNIQUE INDEX accounts_email ON accounts (email);
CREATE TABLE payments (account_id bigint REFERENCES accounts (id), email text REFERENCES accounts (email));
CREATE TABLE refunds (account_id bigint, CONSTRAINT refunds_account FOREIGN KEY (account_id) REFERENCES accounts (id));
DROP INDEX accounts_id;
DROP INDEX accounts_id CASCADE;
ALTER TABLE payments ADD CONSTRAINT payments_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
CREATE UNIQUE INDEX accounts_id ON accounts (id);
ALTER TABLE payments ADD CONSTRAINT payments_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id);
DROP INDEX accounts_email CASCADE;
`},
	{"a foreign key uses the first matching index, or the primary key", `
CREATE TABLE orgs (id int NOT NULL);
CREATE UNIQUE INDEX orgs_id_first ON orgs (id);
ALTER TABLE orgs ADD PRIMARY KEY (id);
CREATE TABLE teams (by_pk int REFERENCES orgs, by_cols int REFERENCES orgs (id));
DROP INDEX orgs_id_first CASCADE;
ALTER TABLE orgs DROP CONSTRAINT orgs_pkey;
`},
	{"drop a unique constraint a foreign key uses", `
CREATE TABLE skus (code text NOT NULL, CONSTRAINT skus_code_key UNIQUE (code));
CREATE TABLE lines (code text REFERENCES skus (code));
DROP INDEX skus_code_key CASCADE;
ALTER TABLE skus DROP CONSTRAINT skus_code_key;
ALTER TABLE skus DROP CONSTRAINT skus_code_key CASCADE;
ALTER TABLE lines ADD CONSTRAINT lines_code_fkey CHECK (code <> '');
`},
	{"drop table with foreign keys to it", `
CREATE TABLE parents (id int PRIMARY KEY, parent_id int REFERENCES parents);
CREATE TABLE kids (parent_id int REFERENCES parents, name text, UNIQUE (parent_id, name));
DROP TABLE parents;
DROP TABLE parents CASCADE;
CREATE TABLE loops (id int PRIMARY KEY, next_id int REFERENCES loops);
DROP TABLE loops;
`},
	{"drop column with indexes, constraints and keys on it", `
CREATE TABLE users (id int PRIMARY KEY, handle text NOT NULL, org int, UNIQUE (org, handle), CHECK (handle <> ''), CHECK (org > 0));
CREATE INDEX users_lower_handle ON users (lower(handle));
CREATE INDEX users_org_partial ON users (org) WHERE handle IS NOT NULL;
CREATE TABLE follows (org int, handle text, FOREIGN KEY (org, handle) REFERENCES users (org, handle));
ALTER TABLE users DROP COLUMN handle;
ALTER TABLE users DROP COLUMN handle CASCADE;
CREATE TABLE posts (id int PRIMARY KEY, author int REFERENCES users, CHECK (author <> id));
ALTER TABLE posts DROP COLUMN author;
ALTER TABLE users DROP COLUMN id;
ALTER TABLE users DROP COLUMN id CASCADE;
`},
	{"drop type and domain with their columns", `
CREATE TYPE mood AS ENUM ('ok', 'sad');
CREATE DOMAIN mood_d AS mood;
CREATE DOMAIN email AS text CHECK (VALUE LIKE '%@%');
CREATE TABLE people (id int, m mood, md mood_d, ms mood[], e email UNIQUE, keep int, UNIQUE (id, m));
DROP TYPE mood;
DROP DOMAIN email;
DROP TYPE mood CASCADE;
DROP DOMAIN email CASCADE;
`},
	{"drop schema with everything in it", `
CREATE SCHEMA billing;
CREATE TYPE billing.state AS ENUM ('open', 'paid');
CREATE DOMAIN billing.cents AS bigint NOT NULL;
CREATE TABLE billing.invoices (id int PRIMARY KEY, state billing.state);
CREATE INDEX invoices_state ON billing.invoices (state);
CREATE SEQUENCE billing.numbers;
CREATE TABLE public.orders (id int, invoice_id int REFERENCES billing.invoices, state billing.state, total billing.cents, keep int);
CREATE TABLE public.order_parts (id int, state billing.state) PARTITION BY LIST (id);
CREATE SCHEMA empty_types;
CREATE TYPE empty_types.k AS ENUM ('x');
DROP SCHEMA empty_types;
CREATE SCHEMA only_seq;
CREATE SEQUENCE only_seq.s;
DROP SCHEMA only_seq;
DROP SCHEMA billing;
DROP SCHEMA billing CASCADE;
DROP SCHEMA empty_types CASCADE;
DROP SCHEMA only_seq CASCADE;
`},
	{"drop schema takes partitions and children elsewhere", `
CREATE SCHEMA arch;
CREATE TABLE arch.events (id int, at date) PARTITION BY RANGE (at);
CREATE TABLE public.events_2026 PARTITION OF arch.events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE TABLE arch.base (id int);
CREATE TABLE public.derived (extra int) INHERITS (arch.base);
DROP TABLE arch.base;
DROP SCHEMA arch;
DROP SCHEMA arch CASCADE;
`},
}

func TestReplayCascadeAgainstServer(t *testing.T) {
	for _, sc := range cascadeScripts {
		t.Run(sc.name, func(t *testing.T) {
			stmts, err := pg.SplitWithParser(sc.sql, true)
			if err != nil {
				t.Fatal(err)
			}
			conn := testDB(t)
			cat := catalog.New()
			r := NewReplayer(cat)
			refused := 0
			for i, s := range stmts {
				want := ""
				if _, err := conn.Exec(context.Background(), s); err != nil {
					var pe *pgconn.PgError
					if !errors.As(err, &pe) {
						t.Fatalf("%q: %v", s, err)
					}
					want = pe.Code + " " + pe.Message
					refused++
				}
				var got []string
				for _, d := range r.Apply(scan.NewStatement(fmt.Sprintf("m%d.sql", i), s, 0)) {
					got = append(got, d.SQLState+" "+d.Message)
				}
				switch {
				case want == "" && len(got) > 0:
					t.Errorf("%q: the server accepts it, replay says %q", s, got)
				case want != "" && (len(got) != 1 || got[0][:5] != want[:5]):
					t.Errorf("%q: the server refuses it (%s), replay says %q", s, want, got)
				}
			}
			if refused == 0 {
				t.Errorf("the script has no statement the server refuses: it tests CASCADE only half")
			}
			for _, part := range []struct{ what, query string }{
				{"columns", cascadeColumns}, {"indexes", cascadeIndexes},
				{"constraints", cascadeConstraints}, {"types", cascadeTypes}, {"schemas", cascadeSchemas},
			} {
				if d := diffLists(queryStrings(t, conn, part.query), replayedCatalog(cat)[part.what]); d != "" {
					t.Errorf("%s differ:\n%s", part.what, d)
				}
			}
		})
	}
}

const userSchemas = `n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'`

var (
	cascadeColumns = `SELECT n.nspname || '.' || c.relname || '.' || a.attname FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped AND ` + userSchemas
	cascadeIndexes = `SELECT n.nspname || '.' || c.relname || ' ' || i.relname FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ` + userSchemas
	cascadeConstraints = `SELECT n.nspname || '.' || c.relname || ' ' || k.conname || ' ' || k.contype::text FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE k.contype IN ('c', 'u', 'p', 'f') AND ` + userSchemas
	cascadeTypes = `SELECT n.nspname || '.' || t.typname || ' ' || t.typtype::text FROM pg_type t
JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.typtype IN ('e', 'd') AND ` + userSchemas
	cascadeSchemas = `SELECT n.nspname FROM pg_namespace n WHERE ` + userSchemas
)

// replayedCatalog lists a replayed catalog in the server queries' shapes.
func replayedCatalog(cat *catalog.Catalog) map[string][]string {
	out := map[string][]string{}
	add := func(what, s string) { out[what] = append(out[what], s) }
	for name, s := range cat.Schemas {
		if name == catalog.TempSchema {
			continue
		}
		add("schemas", name)
		for _, e := range s.Enums {
			add("types", name+"."+e.Name+" e")
		}
		for _, d := range s.Domains {
			add("types", name+"."+d.Name+" d")
		}
		for _, tb := range s.Tables {
			if tb.Kind == catalog.MaterializedView {
				continue
			}
			qn := name + "." + tb.Name
			for _, c := range tb.Columns {
				add("columns", qn+"."+c.Name)
			}
			for _, ix := range tb.Indexes {
				add("indexes", qn+" "+ix.Name)
				switch {
				case ix.Primary:
					add("constraints", qn+" "+ix.Constraint+" p")
				case ix.Constraint != "":
					add("constraints", qn+" "+ix.Constraint+" u")
				}
			}
			for _, ck := range tb.Checks {
				add("constraints", qn+" "+ck.Name+" c")
			}
			for _, fk := range tb.ForeignKeys {
				add("constraints", qn+" "+fk.Name+" f")
			}
		}
	}
	for _, l := range out {
		sort.Strings(l)
	}
	return out
}
