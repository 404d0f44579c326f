package idemtest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/idemcheck/idemcheck/idemtest"
	"github.com/idemcheck/idemcheck/racetest/groundtruth"
)

// A server started by the test (or any URL) races as a handler does.
func ExampleHTTP() {
	var t *testing.T // your Test function's t
	srv := httptest.NewServer(&groundtruth.Sound{})
	defer srv.Close()

	req, err := http.NewRequest("POST", srv.URL+"/charges", strings.NewReader(`{"amount":100}`))
	if err != nil {
		t.Fatal(err)
	}
	res := idemtest.HTTP(t, req, idemtest.N(4), idemtest.Rounds(50))
	t.Log(res.Message)
}

// An API that reads its key from the body gets it from a builder.
func ExampleBuildRequest() {
	var t *testing.T // your Test function's t
	var handler http.Handler = &groundtruth.Sound{}

	idemtest.Handler(t, handler, nil, idemtest.BuildRequest(func(key string) *http.Request {
		body := `{"amount":100,"idempotency_key":"` + key + `"}`
		return httptest.NewRequest("POST", "/charges", strings.NewReader(body))
	}))
}

// The check form lets the test go on, to assert more on the result.
func ExampleCheckHandler() {
	var t *testing.T // your Test function's t
	g := &groundtruth.ReadCheckWrite{}

	res := idemtest.CheckHandler(t, g, httptest.NewRequest("POST", "/charges", nil),
		idemtest.CountEffects(g.Count))
	if res.Verdict == idemtest.Broken {
		for _, r := range res.Rounds {
			if r.Wins > 1 {
				t.Logf("round %d: key %s won %d times (%s)", r.Index, r.Key, r.Wins, strings.Join(r.Answers, ", "))
			}
		}
	}
}
