package httprace

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/idemcheck/idemcheck/racetest"
)

// keepAliveKiller answers the first request on every connection with
// keep-alive, then reads the next request on it and closes the connection
// without answering: what a server does when it restarts or times out an
// idle connection just as a reused one is written to. It records the key
// of every request that reached it.
type keepAliveKiller struct {
	ln   net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	keys []string
}

func startKeepAliveKiller(t *testing.T) *keepAliveKiller {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	k := &keepAliveKiller{ln: ln}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			k.wg.Add(1)
			go func() {
				defer k.wg.Done()
				defer c.Close()
				br := bufio.NewReader(c)
				for i := 0; ; i++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					k.mu.Lock()
					k.keys = append(k.keys, req.Header.Get(KeyHeader))
					k.mu.Unlock()
					if i > 0 {
						return // the reused connection dies unanswered
					}
					fmt.Fprint(c, "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}")
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); k.wg.Wait() })
	return k
}

func (k *keepAliveKiller) count(key string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, s := range k.keys {
		if s == key {
			n++
		}
	}
	return n
}

// TestNothingIsResent: net/http's Transport treats a POST with an
// Idempotency-Key header and a rewindable body as replayable and sends it
// again when the reused connection dies, which executes it twice on a
// server that had read it. The probe's requests reach the server once.
func TestNothingIsResent(t *testing.T) {
	k := startKeepAliveKiller(t)
	url := "http://" + k.ln.Addr().String() + "/charges"

	// The hazard, with net/http as the conformance checks used it.
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for _, key := range []string{"nethttp-a", "nethttp-b"} {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(`{"amount":100}`)))
		req.Header.Set(KeyHeader, key)
		if resp, err := client.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	if n := k.count("nethttp-b"); n != 2 {
		t.Fatalf("net/http sent the request on a dying connection %d times; this test expects it to resend (2)", n)
	}

	// The probe: one connection per request, written by itself.
	p := quick(url)
	p.Defaults()
	for _, key := range []string{"probe-a", "probe-b", "probe-c"} {
		r, err := renderRequest(&p, racetest.RoundValues{Key: key})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := sendOne(context.Background(), &p, SyncH1, r, 0); err != nil {
			t.Fatal(err)
		}
		if n := k.count(key); n != 1 {
			t.Errorf("key %s reached the server %d times, want 1", key, n)
		}
	}

	// A whole run with conformance: the calibration key twice (it is sent
	// twice on purpose), every round key N times, and nothing more.
	p.Rounds = 3
	p.Sync = SyncH1 // auto's look at the server (OPTIONS *) is no request of the race
	res := run(t, p)
	prof, _ := ProfileNamed("ietf", nil)
	res.Conformance = Conform(context.Background(), p, prof, "", res)
	k.mu.Lock()
	keys := append([]string(nil), k.keys...)
	k.mu.Unlock()
	perKey := map[string]int{}
	for _, key := range keys {
		perKey[key]++
	}
	retried := "" // check 1 retries one round's key once more
	for _, r := range res.Rounds {
		if strings.Contains(res.Conformance[0].Sent, fmt.Sprintf("(key of round %d)", r.Index)) {
			retried = r.Key
		}
	}
	if retried == "" {
		t.Fatalf("check 1 retried no round: %+v", res.Conformance[0])
	}
	for key, n := range perKey {
		want := 1
		switch {
		case strings.HasPrefix(key, "nethttp-") || strings.HasPrefix(key, "probe-"):
			continue
		case strings.Contains(key, "-calibration-"), strings.Contains(key, "-mismatch-"):
			want = 2
		case key == "" || strings.Contains(key, "-distinct"):
			want = 1 // the missing-key check; the distinct keys
		case key == retried:
			want = p.N + 1
		default:
			want = p.N
		}
		if n != want {
			t.Errorf("key %s reached the server %d times, want %d", key, n, want)
		}
	}
}
