package httprace

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/idemcheck/idemcheck/racetest"
)

// secretHeaders are redacted wherever a request or response is shown, in
// text, JSON and -v alike; --secret-header adds to them.
var secretHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"}

const redacted = "<redacted>"

// isSecret reports whether the header name is redacted.
func isSecret(name string, extra []string) bool {
	for _, list := range [][]string{secretHeaders, extra} {
		for _, s := range list {
			if strings.EqualFold(strings.TrimSpace(s), name) {
				return true
			}
		}
	}
	return false
}

// showRequest is one line for people: method, path, headers (secrets
// redacted) and the body, clipped.
func showRequest(r request, secrets []string) string {
	var b strings.Builder
	b.WriteString(r.method + " " + r.target.requestPath)
	for _, h := range r.header {
		v := string(h.Value)
		if isSecret(h.Name, secrets) {
			v = redacted
		}
		fmt.Fprintf(&b, " [%s: %s]", h.Name, v)
	}
	if len(r.body) > 0 {
		b.WriteString(" " + racetest.Clip(r.body))
	}
	return b.String()
}

// redactURL hides a password in the URL's user information.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// Shown is the request of the round with values v as the text output
// shows it: method, path, headers with Authorization, cookies and
// --secret-header redacted, and the body clipped.
func (p *Probe) Shown(v racetest.RoundValues) string {
	r, err := renderRequest(p, v)
	if err != nil {
		return p.Method + " " + redactURL(string(p.URL))
	}
	return showRequest(r, p.Secrets)
}
