// Package parallel runs independent jobs on several goroutines: the one
// worker loop the audit's holes, its rules and the witnesses share.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers is how many goroutines n jobs are worth: GOMAXPROCS, but one
// for every perWorker jobs at most, and 1 when there are fewer than
// 2*perWorker.
func Workers(n, perWorker int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/perWorker))
}

// Each calls fn(0) ... fn(n-1) on workers goroutines, each taking the next
// index not yet taken, and returns when every call has; with one worker
// it calls them in order on the calling goroutine. fn must be safe to run
// at once for different indexes.
func Each(n, workers int, fn func(i int)) {
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
