package httprace

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"time"
)

// maxStampedBody bounds the body StampArrival reads before the handler.
const maxStampedBody = 1 << 20

// ArrivalMetric is the Server-Timing value the probe reads as a request's
// arrival: milliseconds since the Unix epoch, to the microsecond, so that
// a server on the probe's machine is on the probe's own clock.
func ArrivalMetric(t time.Time) string {
	return fmt.Sprintf("arrival;dur=%.3f", float64(t.UnixNano())/1e6)
}

// readArrival reads r's whole body and returns when its last byte was
// read: the moment the request was complete on the server, which is what
// the release synchronises. The body is put back for the handler.
func readArrival(r *http.Request) (time.Time, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxStampedBody+1))
	at := time.Now()
	if err == nil && len(body) > maxStampedBody {
		err = fmt.Errorf("request body longer than %d bytes", maxStampedBody)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return at, err
}

// StampArrival wraps a test target so that it reads each request's body
// first and answers Server-Timing: arrival;dur=<ms> with the time its last
// byte was read. The probe's arrival spread, the benchmark's and the
// timeline's arrivals come from it; the client's own release spread is a
// diagnostic beside it.
func StampArrival(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at, err := readArrival(r)
		w.Header().Set("Server-Timing", ArrivalMetric(at))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}
