package testsupport

import (
	"context"
	"sync"
	"time"
)

// Expirable is a context that ends as one past its deadline does
// (context.DeadlineExceeded) when the test calls expire, after what it
// waits for has happened, instead of at a time a slow machine may reach
// first. It also ends when parent does.
func Expirable(parent context.Context) (ctx context.Context, expire func()) {
	e := &expirable{Context: parent, done: make(chan struct{}), trigger: make(chan struct{})}
	var once sync.Once
	go func() {
		select {
		case <-parent.Done():
			e.end(parent.Err())
		case <-e.trigger:
			e.end(context.DeadlineExceeded)
		}
	}()
	return e, func() { once.Do(func() { close(e.trigger) }) }
}

type expirable struct {
	context.Context
	done    chan struct{}
	trigger chan struct{}
	mu      sync.Mutex
	err     error
}

func (e *expirable) end(err error) {
	e.mu.Lock()
	e.err = err
	e.mu.Unlock()
	close(e.done)
}

func (e *expirable) Done() <-chan struct{} { return e.done }

func (e *expirable) Err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// Deadline is the parent's: an expirable context has none of its own.
func (e *expirable) Deadline() (time.Time, bool) { return e.Context.Deadline() }
