package nginxtest

import (
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestProxiesOverHTTP2: nginx answers over HTTP/2 by ALPN with what the
// HTTP/1.1 upstream said, and says it is nginx.
func TestProxiesOverHTTP2(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "upstream saw "+r.Proto+" "+r.URL.Path)
	}))
	defer up.Close()
	s, err := Start(t.TempDir(), strings.TrimPrefix(up.URL, "http://"))
	if errors.Is(err, ErrNotInstalled) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	client := &http.Client{Transport: &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Get(s.URL + "/claims")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.Proto != "HTTP/2.0" || !strings.HasPrefix(resp.Header.Get("Server"), "nginx") || string(body) != "upstream saw HTTP/1.1 /claims" {
		t.Fatalf("got %s, Server %q, body %q; want HTTP/2.0 from nginx with the upstream's HTTP/1.1 answer", resp.Proto, resp.Header.Get("Server"), body)
	}
}
