package httprace

import (
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/idemcheck/idemcheck/racetest"
	"golang.org/x/net/http/httpguts"
)

// values are the round's template values; with UUIDKeys the key is the
// round's UUID.
func (p *Probe) values(run string, i int) racetest.RoundValues {
	v := racetest.NewRoundValues(run, i)
	if p.UUIDKeys {
		v.Key = v.UUID
	}
	return v
}

// framingHeaders are written by the probe itself, so a built request's own
// copies are dropped: the Host header comes from req.Host or the URL, and
// Content-Length from the body.
var framingHeaders = []string{"Host", "Content-Length", "Connection", "Transfer-Encoding"}

// buildRequest asks p.Build for the request of v and turns it into the
// probe's form. The body is read whole; headers go out in name order, each
// value on a line of its own.
func buildRequest(p *Probe, v racetest.RoundValues) (request, error) {
	req, err := p.Build(v)
	if err != nil {
		return request{}, err
	}
	if req == nil || req.URL == nil {
		return request{}, fmt.Errorf("the request builder returned no request (or one without a URL) for key %s", v.Key)
	}
	t, err := parseTarget(req.URL.String())
	if err != nil {
		return request{}, err
	}
	if req.Host != "" {
		t.host = req.Host
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	r := request{method: method, target: t}
	if req.Body != nil {
		r.body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return request{}, fmt.Errorf("reading the built request's body: %v", err)
		}
	}
	names := make([]string, 0, len(req.Header))
	for name := range req.Header {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if slices.Contains(framingHeaders, http.CanonicalHeaderKey(name)) {
			continue
		}
		if !httpguts.ValidHeaderFieldName(name) {
			return request{}, fmt.Errorf("the built request has an invalid header name %q", name)
		}
		for _, value := range req.Header[name] {
			if !httpguts.ValidHeaderFieldValue(value) {
				return request{}, fmt.Errorf("the built request's header %s has an invalid value %q", name, value)
			}
			r.header = append(r.header, Header{Name: name, Value: racetest.Template(value)})
		}
	}
	return r, nil
}
