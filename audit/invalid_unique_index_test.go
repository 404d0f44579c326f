package audit

import (
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/catalog"
)

func liveTable(kind catalog.TableKind, indexes ...*catalog.Index) *catalog.Catalog {
	cat := catalog.New()
	t := &catalog.Table{Schema: "public", Name: "payments", Kind: kind,
		Columns: []*catalog.Column{{Name: "org", NotNull: true}, {Name: "ref", NotNull: true}},
		Indexes: indexes}
	cat.Schemas["public"].Tables["payments"] = t
	return cat
}

func uniqueIndex(name string, valid, ready bool) *catalog.Index {
	return &catalog.Index{Name: name, Unique: true, Valid: valid, Ready: ready, Method: "btree",
		Parts: []catalog.IndexPart{{Column: "org"}, {Column: "ref"}}}
}

func TestInvalidUniqueIndex(t *testing.T) {
	cases := []struct {
		name    string
		cat     *catalog.Catalog
		want    string // a phrase of the message; "" for no finding
		fixSQL  string
		wantPre bool
	}{
		{"valid", liveTable(catalog.Ordinary, uniqueIndex("ok", true, true)), "", "", false},
		{"plain index not valid", liveTable(catalog.Ordinary, &catalog.Index{Name: "plain", Parts: []catalog.IndexPart{{Column: "org"}}}), "", "", false},
		{"failed build", liveTable(catalog.Ordinary, uniqueIndex("pay_key", false, true)), "never checked", "REINDEX INDEX CONCURRENTLY pay_key;", true},
		{"not ready", liveTable(catalog.Ordinary, uniqueIndex("pay_key", false, false)), "enforces nothing", "REINDEX INDEX CONCURRENTLY pay_key;", true},
		{"partitioned parent", liveTable(catalog.Partitioned, uniqueIndex("pay_key", false, true)), "ATTACH PARTITION", "ALTER INDEX pay_key ATTACH PARTITION", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := Run(c.cat, []*Rule{InvalidUniqueIndex}, Options{PGVersion: 15, Live: true})
			if c.want == "" {
				if len(fs) != 0 {
					t.Fatalf("unexpected findings: %+v", fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("findings = %+v, want one", fs)
			}
			f := fs[0]
			if f.Rule != "invalid-unique-index" || f.Severity != Error || f.Object != "public.payments.pay_key" {
				t.Errorf("finding = %+v", f)
			}
			if !strings.Contains(f.Message, c.want) || !strings.HasPrefix(f.Message, "payments.pay_key (org, ref): ") {
				t.Errorf("message %q, want it to start with the index and say %q", f.Message, c.want)
			}
			if len(f.Fixes) == 0 || !strings.HasPrefix(f.Fixes[0].SQL, c.fixSQL) {
				t.Errorf("first fix = %+v, want %q", f.Fixes, c.fixSQL)
			}
			if got := f.Fixes[0].Precheck != ""; got != c.wantPre {
				t.Errorf("precheck = %q", f.Fixes[0].Precheck)
			}
		})
	}
	// Replay has no idea of validity: without a live catalog the rule is off.
	if fs := Run(liveTable(catalog.Ordinary, uniqueIndex("pay_key", false, true)), []*Rule{InvalidUniqueIndex}, Options{PGVersion: 15}); len(fs) != 0 {
		t.Errorf("ran on a replayed catalog: %+v", fs)
	}
}
