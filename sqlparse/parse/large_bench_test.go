package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// checkInList is CREATE TABLE tK with a CHECK whose IN-list has items
// numbers, the statement issue 23 measured (50 MB took 1.56 GB and 20 s).
func checkInList(k, items int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE t%d (a int CHECK (a IN (", k)
	for i := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, i)
	}
	b.WriteString(")));\n")
	return b.String()
}

// peakHeap samples the live heap until stop is closed and returns the most
// it saw, in bytes.
func peakHeap(stop <-chan struct{}, out chan<- uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	for {
		metrics.Read(s)
		peak = max(peak, s[0].Value.Uint64())
		select {
		case <-stop:
			out <- peak
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// BenchmarkLoadLargeStatements loads (splits and parses, applying
// nothing) files of large statements and reports the peak live heap: one
// 50 MB CHECK (refused without parsing since MaxParseItems), one statement
// just under the limit, and eight of those in one file (parsed one at a
// time by the text window).
func BenchmarkLoadLargeStatements(b *testing.B) {
	const near = MaxParseItems - 10
	for _, c := range []struct {
		name string
		sql  func() string
	}{
		{"check-50MB", func() string { return checkInList(0, 5_950_000) }},
		{"check-near-limit", func() string { return checkInList(0, near) }},
		{"check-near-limit-x8", func() string {
			var s strings.Builder
			for k := range 8 {
				s.WriteString(checkInList(k, near))
			}
			return s.String()
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "large.sql")
			if err := os.WriteFile(path, []byte(c.sql()), 0o644); err != nil {
				b.Fatal(err)
			}
			info, _ := os.Stat(path)
			b.SetBytes(info.Size())
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				runtime.GC()
				stop, got := make(chan struct{}), make(chan uint64)
				go peakHeap(stop, got)
				Load([]string{path}, LoadOptions{Apply: func(*Parsed) []scan.Diagnostic { return nil }})
				close(stop)
				peak = max(peak, <-got)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}
