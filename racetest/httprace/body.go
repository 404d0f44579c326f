package httprace

import (
	"encoding/json"
	"net/http"

	"github.com/idemcheck/idemcheck/racetest"
)

// defaultContentType gives a body without a Content-Type header the one
// curl would: application/json when the body parses as JSON (curl's
// --json), application/x-www-form-urlencoded otherwise (curl's -d).
// Without it Express and Nest ignore the body and Fastify answers 415. A
// Content-Type header the user gave wins. The choice is kept as a note.
func (p *Probe) defaultContentType() {
	if p.Body == "" {
		return
	}
	for _, h := range p.Header {
		if http.CanonicalHeaderKey(h.Name) == "Content-Type" {
			return
		}
	}
	ct, why := "application/x-www-form-urlencoded", "the body is not JSON"
	if json.Valid([]byte(p.Body.Render(racetest.RoundValues{Key: "k", Round: 1, UUID: "u"}))) {
		ct, why = "application/json", "the body parses as JSON"
	}
	p.Header = append(p.Header, Header{Name: "Content-Type", Value: racetest.Template(ct)})
	p.contentTypeNote = "Content-Type: " + ct + " (" + why + "; -H 'Content-Type: ...' sends another)"
}
