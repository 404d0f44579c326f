package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Fingerprint identifies a finding across runs and across the two sources
// of a catalog: the rule, the object and the key parts it is about, never a
// line or a column, so that an edit above it does not make it new and a
// finding of lint and the same finding of inspect share it. Baselines,
// SARIF's partial fingerprints and GitLab's Code Quality report all use it.
//
// A key part joining the finding (a column that loses NOT NULL) gives a new
// fingerprint: the hole is wider than the one accepted before. An ignore
// directive's finding is about the file it sits in, so its file counts.
func (f Finding) Fingerprint() string {
	key := []string{f.Rule, f.Object}
	if f.Object == "" {
		key[1] = f.Pos.File + ":" + f.Message
	}
	if f.Rule == UnusedIgnore.ID && f.Pos.File != "" {
		key = append(key, f.Pos.File)
	}
	key = append(key, f.Columns...)
	sum := sha256.Sum256([]byte(strings.Join(key, "\x00")))
	return hex.EncodeToString(sum[:16])
}
