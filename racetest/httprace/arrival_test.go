package httprace

import (
	"bufio"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A stamped target's arrival is when the body's last byte was read, not
// when the headers came: a request whose body is held back after its
// headers arrives when the body does.
func TestStampArrivalIsTheLastBodyByte(t *testing.T) {
	handledAt := make(chan time.Time, 1)
	srv := httptest.NewServer(StampArrival(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handledAt <- time.Now()
		w.WriteHeader(http.StatusNoContent)
	})))
	defer srv.Close()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the handler starts and blocks on the body
	beforeLast := time.Now()
	if _, err := c.Write([]byte("}")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	handled := <-handledAt
	at := serverArrival(resp.Header)
	if at == nil {
		t.Fatalf("no arrival in Server-Timing %q", resp.Header.Get("Server-Timing"))
	}
	// The metric is rounded to the microsecond.
	if got := time.Unix(0, int64(*at)); got.Before(beforeLast.Add(-time.Microsecond)) || got.After(handled.Add(time.Microsecond)) {
		t.Errorf("arrival %s, want between the last byte's write %s and the handler %s", got.Format(time.StampMicro), beforeLast.Format(time.StampMicro), handled.Format(time.StampMicro))
	}
}
