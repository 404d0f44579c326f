package racetest

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Profile is the statuses a conformance run expects (RACE.md).
type Profile struct {
	Name string
	// Missing is the status for a request without a key; 0 when the
	// profile does not require a key.
	Missing StatusSet
	// Mismatch is the status for a key reused with a different payload.
	Mismatch StatusSet
	// MismatchBody, when set, must appear in the mismatch response body
	// (Stripe's idempotency_error).
	MismatchBody string
}

// ProfileNamed returns the ietf, stripe or custom profile; custom expects
// the --refuse statuses everywhere.
func ProfileNamed(name string, refuse StatusSet) (Profile, error) {
	s := func(v string) StatusSet { set, _ := ParseStatusSet(v); return set }
	switch name {
	case "ietf":
		return Profile{Name: name, Missing: s("400"), Mismatch: s("422")}, nil
	case "stripe":
		return Profile{Name: name, Mismatch: s("400"), MismatchBody: "idempotency_error"}, nil
	case "custom":
		return Profile{Name: name, Missing: refuse, Mismatch: refuse}, nil
	}
	return Profile{}, fmt.Errorf("--profile %q: want ietf, stripe or custom", name)
}

// Conform runs the five sequential checks of RACE.md around the burst
// whose result is res. failBody is a payload the target fails on (check 4;
// skipped when empty).
func Conform(ctx context.Context, p Probe, prof Profile, failBody string, res *Result) []Check {
	p.Defaults()
	c := conformer{p: p, prof: prof, client: conformClient(p)}
	defer c.client.CloseIdleConnections()
	return []Check{
		c.retryReplays(ctx, res),
		c.mismatchRefused(ctx),
		c.missingKeyRefused(ctx),
		c.failureReleasesSlot(ctx, failBody),
		c.distinctKeysEachWin(ctx),
	}
}

type conformer struct {
	p      Probe
	prof   Profile
	client *http.Client
}

func conformClient(p Probe) *http.Client {
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: p.Insecure}} // only with --insecure
	return &http.Client{Transport: tr, Timeout: p.Timeout}
}

// reply is one sequential response.
type reply struct {
	status int
	body   []byte
	err    error
}

func (r reply) String() string {
	if r.err != nil {
		return describeErr(r.err)
	}
	return fmt.Sprintf("%d %s", r.status, clip(r.body))
}

func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

// send renders the probe's request with v, optionally with another body
// and without the headers that carry the key.
func (c *conformer) send(ctx context.Context, v RoundValues, body *string, dropKey bool) (reply, string) {
	r, err := renderRequest(&c.p, v)
	if err != nil {
		return reply{err: err}, ""
	}
	if body != nil {
		r.body = []byte(*body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.p.URL.Render(v), bytes.NewReader(r.body))
	if err != nil {
		return reply{err: err}, ""
	}
	sent := r.method + " " + r.target.requestPath
	for i, h := range r.header {
		tmpl := string(c.p.Header[i].Value)
		if dropKey && (strings.Contains(tmpl, "{{key}}") || strings.Contains(tmpl, "{{uuid}}")) {
			continue
		}
		req.Header.Add(h.Name, string(h.Value))
		sent += fmt.Sprintf(" [%s: %s]", h.Name, h.Value)
	}
	if len(r.body) > 0 {
		sent += " " + clip(r.body)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return reply{err: err}, sent
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	return reply{status: resp.StatusCode, body: b, err: err}, sent
}

func (c *conformer) fresh(tag string) RoundValues {
	return NewRoundValues(c.p.RunID+"-"+tag, 0)
}

// 1: a retry after the burst returns the winner's response.
func (c *conformer) retryReplays(ctx context.Context, res *Result) Check {
	ch := Check{Name: "a retry after the burst returns the winner's response"}
	var round *Round
	var winner *Outcome
	for i := len(res.Rounds) - 1; i >= 0 && winner == nil; i-- {
		r := &res.Rounds[i]
		for k := range r.Outcomes {
			if r.Outcomes[k].Kind == Win {
				round, winner = r, &r.Outcomes[k]
				break
			}
		}
	}
	if winner == nil {
		ch.Sent, ch.Got, ch.Detail = "nothing", "nothing", "no round had a win to retry"
		return ch
	}
	got, sent := c.send(ctx, round.values, nil, false)
	ch.Sent, ch.Got = sent+" (key of round "+fmt.Sprint(round.Index)+")", got.String()
	ch.Pass = got.err == nil && got.status == winner.Status && bytes.Equal(got.body, winner.body)
	if !ch.Pass {
		ch.Detail = fmt.Sprintf("the winner got %d %s", winner.Status, clip(winner.body))
	}
	return ch
}

// 2: the same key with a different payload is refused with the profile's
// status and no effect.
func (c *conformer) mismatchRefused(ctx context.Context) Check {
	ch := Check{Name: "the same key with a different payload is refused"}
	v := c.fresh("mismatch")
	first, _ := c.send(ctx, v, nil, false)
	other := differentPayload(c.p.Body.Render(v))
	before, _ := c.count(ctx, v.Key)
	got, sent := c.send(ctx, v, &other, false)
	after, _ := c.count(ctx, v.Key)
	ch.Sent, ch.Got = sent, got.String()
	ch.Pass = first.err == nil && got.err == nil && c.prof.Mismatch.Has(got.status) &&
		bytes.Contains(got.body, []byte(c.prof.MismatchBody)) && before == after
	switch {
	case first.err != nil || !c.p.Classifier.Win.Has(first.status):
		ch.Pass, ch.Detail = false, "the first request was not a win: "+first.String()
	case before != after:
		ch.Detail = fmt.Sprintf("the refused request still had an effect (%d -> %d)", before, after)
	case !ch.Pass:
		ch.Detail = fmt.Sprintf("profile %s wants %s", c.prof.Name, c.prof.describeMismatch())
	}
	return ch
}

func (p Profile) describeMismatch() string {
	if p.MismatchBody != "" {
		return fmt.Sprintf("%v with %q in the body", p.Mismatch, p.MismatchBody)
	}
	return fmt.Sprint(p.Mismatch)
}

func (s StatusSet) String() string {
	var parts []string
	for _, r := range s {
		if r.lo == r.hi {
			parts = append(parts, fmt.Sprint(r.lo))
		} else if r.hi-r.lo == 99 && r.lo%100 == 0 {
			parts = append(parts, fmt.Sprintf("%dxx", r.lo/100))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r.lo, r.hi))
		}
	}
	return strings.Join(parts, ",")
}

// differentPayload changes a body so that no gate can mistake it for the
// original: a field is added to a JSON object, anything else gets a suffix.
func differentPayload(body string) string {
	t := strings.TrimSpace(body)
	if strings.HasPrefix(t, "{") {
		rest := strings.TrimSpace(t[1:])
		if rest == "}" {
			return `{"idemcheck_variant":true}`
		}
		return `{"idemcheck_variant":true,` + rest
	}
	return body + "-idemcheck-variant"
}

// 3: a missing key is refused where the profile requires one.
func (c *conformer) missingKeyRefused(ctx context.Context) Check {
	ch := Check{Name: "a request without a key is refused"}
	if c.prof.Missing == nil {
		ch.Pass, ch.Sent, ch.Got, ch.Detail = true, "nothing", "nothing", "profile "+c.prof.Name+" does not require a key"
		return ch
	}
	got, sent := c.send(ctx, c.fresh("missing"), nil, true)
	ch.Sent, ch.Got = sent, got.String()
	ch.Pass = got.err == nil && c.prof.Missing.Has(got.status)
	if !ch.Pass {
		ch.Detail = fmt.Sprintf("profile %s wants %v", c.prof.Name, c.prof.Missing)
	}
	return ch
}

// 4: after a request that fails, a retry with the same key is processed
// again.
func (c *conformer) failureReleasesSlot(ctx context.Context, failBody string) Check {
	ch := Check{Name: "a failed attempt releases its key"}
	if failBody == "" {
		ch.Pass, ch.Sent, ch.Got, ch.Detail = true, "nothing", "nothing", "skipped: give --fail-data with a payload the target fails on"
		return ch
	}
	v := c.fresh("failed")
	failed, sent1 := c.send(ctx, v, &failBody, false)
	retry, sent2 := c.send(ctx, v, nil, false)
	ch.Sent = sent1 + ", then " + sent2
	ch.Got = failed.String() + ", then " + retry.String()
	ch.Pass = failed.err == nil && !c.p.Classifier.Win.Has(failed.status) && retry.err == nil && c.p.Classifier.Win.Has(retry.status)
	if !ch.Pass {
		ch.Detail = "the retry after a failure must be processed again (a failed attempt must not keep its slot)"
	}
	return ch
}

// 5: concurrent requests with different keys each perform their effect.
func (c *conformer) distinctKeysEachWin(ctx context.Context) Check {
	ch := Check{Name: "concurrent requests with different keys each win"}
	replies := make([]reply, c.p.N)
	var wg sync.WaitGroup
	for i := range replies {
		v := c.fresh(fmt.Sprintf("distinct%d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i], _ = c.send(ctx, v, nil, false)
		}()
	}
	wg.Wait()
	ch.Sent = fmt.Sprintf("%d requests at once, each with its own key", c.p.N)
	var got []string
	ch.Pass = true
	for _, r := range replies {
		got = append(got, r.String())
		ch.Pass = ch.Pass && r.err == nil && c.p.Classifier.Win.Has(r.status)
	}
	ch.Got = strings.Join(got, "; ")
	if !ch.Pass {
		ch.Detail = "a gate must not refuse requests whose keys differ"
	}
	return ch
}

func (c *conformer) count(ctx context.Context, key string) (int64, error) {
	if c.p.Effect == nil {
		return 0, nil
	}
	return c.p.Effect.Count(ctx, key)
}
