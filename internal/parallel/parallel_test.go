package parallel

import (
	"sync/atomic"
	"testing"
)

// Every index is called exactly once, with one worker and with several.
func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 8, 1000} {
		const n = 500
		var calls [n]atomic.Int32
		Each(n, workers, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if c := calls[i].Load(); c != 1 {
				t.Fatalf("workers %d: index %d called %d times", workers, i, c)
			}
		}
	}
	Each(0, 4, func(int) { t.Fatal("called with no jobs") })
}

// With one worker the calls come in order.
func TestEachOneWorkerInOrder(t *testing.T) {
	var got []int
	Each(5, 1, func(i int) { got = append(got, i) })
	for i, v := range got {
		if v != i {
			t.Fatalf("one worker called %v", got)
		}
	}
}

func TestWorkers(t *testing.T) {
	if w := Workers(10, 32); w != 1 {
		t.Errorf("Workers(10, 32) = %d, want 1", w)
	}
	if w := Workers(0, 4); w != 1 {
		t.Errorf("Workers(0, 4) = %d, want 1", w)
	}
}
