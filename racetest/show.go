package racetest

import (
	"fmt"
	"strings"
)

// ShowResponse is the status and clipped body, with the replay marker
// when the response carries it. Response headers are not shown otherwise,
// so a Set-Cookie never reaches the output.
func ShowResponse(r Response, m ReplayMarker) string {
	if r.Err != nil {
		return describeErr(r.Err)
	}
	s := fmt.Sprint(r.Status)
	if m.Marks(r.Header) {
		s += " [" + m.String() + "]"
	}
	if body := Clip(r.Body); body != "" {
		s += " " + body
	}
	return s
}

// Clip is text for one line of output: trimmed, and cut after 120 bytes.
func Clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}
