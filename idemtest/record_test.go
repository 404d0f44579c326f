package idemtest_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that records what a helper tells the test, so
// that a test can assert how a helper fails one. Everything else (Name,
// Cleanup, TempDir, Context) is the real test's.
type recorder struct {
	testing.TB
	mu      sync.Mutex
	logs    []string
	errors  []string
	skipped string
	stopped bool // Fatal, FailNow or Skip ended the helper
}

// record runs f with a recorder in a goroutine of its own, as the testing
// package runs a test, so that Fatal and Skip end f and nothing else.
func record(t *testing.T, f func(tb testing.TB)) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func (r *recorder) Helper() {}

func (r *recorder) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintln(args...))
}

func (r *recorder) Logf(format string, args ...any) { r.Log(fmt.Sprintf(format, args...)) }

func (r *recorder) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
}

func (r *recorder) Errorf(format string, args ...any) { r.Error(fmt.Sprintf(format, args...)) }
func (r *recorder) Fail()                             { r.Error("Fail") }
func (r *recorder) Failed() bool                      { r.mu.Lock(); defer r.mu.Unlock(); return len(r.errors) > 0 }

func (r *recorder) FailNow() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any)                 { r.Error(args...); r.FailNow() }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); r.FailNow() }

func (r *recorder) Skip(args ...any) {
	r.mu.Lock()
	r.skipped = strings.TrimSuffix(fmt.Sprintln(args...), "\n")
	r.mu.Unlock()
	r.SkipNow()
}

func (r *recorder) Skipf(format string, args ...any) { r.Skip(fmt.Sprintf(format, args...)) }

func (r *recorder) SkipNow() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Skipped() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.skipped != "" }

// failure is the one message the helper failed the test with.
func (r *recorder) failure(t *testing.T) string {
	t.Helper()
	if len(r.errors) != 1 {
		t.Fatalf("the helper reported %d failures, want 1: %q\nlog: %s", len(r.errors), r.errors, r.log())
	}
	return r.errors[0]
}

func (r *recorder) log() string { return strings.Join(r.logs, "") }
