package httprace

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pinToOneCPU runs every thread of this process on one CPU, the first this
// process may use, and returns a function that gives each thread back the
// CPUs it had. On Linux the CPU affinity belongs to a thread and a new
// thread inherits its creator's, so once every existing thread is pinned,
// the threads the Go runtime starts later are too. It returns the CPU, or
// an error when the process may use only one CPU anyway or the kernel
// refuses.
func pinToOneCPU() (cpu int, restore func(), err error) {
	restore = func() {}
	var all unix.CPUSet
	if err := unix.SchedGetaffinity(0, &all); err != nil {
		return 0, restore, err
	}
	if all.Count() < 2 {
		return 0, restore, fmt.Errorf("this process may use only one CPU")
	}
	cpu = -1
	for i := range 1024 {
		if all.IsSet(i) {
			cpu = i
			break
		}
	}
	var one unix.CPUSet
	one.Set(cpu)
	before := map[int]unix.CPUSet{}
	// Two passes: a thread started while the first pass ran may have been
	// created by a thread that was not pinned yet.
	for range 2 {
		tids, err := threadIDs()
		if err != nil {
			return 0, restore, err
		}
		for _, tid := range tids {
			if _, seen := before[tid]; !seen {
				var set unix.CPUSet
				if unix.SchedGetaffinity(tid, &set) != nil {
					continue // the thread has exited
				}
				before[tid] = set
			}
			_ = unix.SchedSetaffinity(tid, &one)
		}
	}
	return cpu, func() {
		// Threads started while pinned get the process's CPUs back too.
		tids, _ := threadIDs()
		for _, tid := range tids {
			set, ok := before[tid]
			if !ok {
				set = all
			}
			_ = unix.SchedSetaffinity(tid, &set)
		}
	}, nil
}

func threadIDs() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}
