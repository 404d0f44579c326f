package cmd

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Lint's garbage is parse trees and file text that die within a
// statement; what survives (the catalog, the history, the comments) is
// small for one schema and grows with a long migration history. Two
// settings of the collector fit the two cases:
//
//   - while the live heap is small, a loose collector (GOGC 200) under a
//     soft limit of lintHeapLimit (24 MiB): on lago's 534 KB structure.sql that is a
//     fifth fewer instructions than collecting at GOGC 50, and the limit
//     keeps the peak in bounds when the garbage comes fast;
//   - once the live heap passes lintHeapTight, the tight collector
//     (GOGC 50, no limit) that keeps the peak near the live heap, so that
//     a large input never makes the collector run back to back against
//     the limit.
//
// go run ./bench measures both (-corpus for a dump, corpora S and L).
const (
	lintHeapLimit = 24 << 20
	lintHeapTight = 16 << 20
	looseGC       = 200
	tightGC       = 50
)

// lintGC sets the loose collector and watches the live heap, moving to the
// tight one when it grows; the returned function restores the settings it
// found.
func lintGC() (restore func()) {
	oldPercent := debug.SetGCPercent(looseGC)
	oldLimit := debug.SetMemoryLimit(lintHeapLimit)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > lintHeapTight {
				debug.SetGCPercent(tightGC)
				debug.SetMemoryLimit(oldLimit)
				return
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}
