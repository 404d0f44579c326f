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
//   - while the heap is small, no collection at all, under a soft limit of
//     lintHeapLimit (32 MiB): one schema (lago's 534 KB structure.sql)
//     allocates less than that in all, and a collection costs a 2-core
//     machine a fifth of its time while it marks; the limit makes the
//     runtime collect should the heap reach it before the watcher acts;
//   - once the heap (live and dead objects) passes lintHeapTight, the
//     tight collector (GOGC 50, no limit) that keeps the peak near the
//     live heap, so that a large input never makes the collector run back
//     to back against the limit.
//
// go run ./bench measures both (-corpus for a dump, corpora S and L).
const (
	lintHeapLimit = 32 << 20
	lintHeapTight = 24 << 20
	tightGC       = 50
)

// lintGC turns the collector off and watches the heap, moving to the
// tight collector when it grows; the returned function restores the
// settings it found.
func lintGC() (restore func()) {
	oldPercent := debug.SetGCPercent(-1)
	oldLimit := debug.SetMemoryLimit(lintHeapLimit)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
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
