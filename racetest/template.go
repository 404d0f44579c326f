package racetest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Template is request text with {{key}}, {{round}} and {{uuid}}
// placeholders. Every request of a round renders with the same values, so
// the N requests of a round are identical and rounds never share a key.
type Template string

// RoundValues are what a round's placeholders render to.
type RoundValues struct {
	Key string
	// Round is {{round}}: the round's number, from 1; 0 for race http's
	// calibration and conformance checks; for its --sync auto pre-run,
	// the numbers after the last round's, so that no two rounds of a run
	// (the pre-run's included) share one.
	Round int
	UUID  string
}

// NewRoundValues makes fresh values for round i of run (a short id shared
// by the run, so keys of different runs never collide).
func NewRoundValues(run string, i int) RoundValues {
	u := newUUID()
	return RoundValues{Key: fmt.Sprintf("idemcheck-%s-%d", run, i), Round: i, UUID: u}
}

// Varies reports whether the template renders differently from round to
// round: it holds {{key}}, {{round}} or {{uuid}}.
func (t Template) Varies() bool {
	return strings.Contains(string(t), "{{key}}") || strings.Contains(string(t), "{{round}}") || strings.Contains(string(t), "{{uuid}}")
}

// Render substitutes the placeholders.
func (t Template) Render(v RoundValues) string {
	return strings.NewReplacer(
		"{{key}}", v.Key,
		"{{round}}", strconv.Itoa(v.Round),
		"{{uuid}}", v.UUID,
	).Replace(string(t))
}

// newUUID returns a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// NewRunID returns a short random id for one run.
func NewRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
