// Package lifeline ends a provider process whose Terraform is gone.
//
// Terraform starts each provider as its child and stops it when it is done
// with it. A Terraform that is killed (kill -9, an out-of-memory kill, a CI
// runner that ends the job) cannot stop it, and go-plugin does not notice:
// the provider serves its gRPC socket for ever, its list-and-watch of the
// cluster's nodes still open. When a process's parent ends, the process is
// given another parent (init, or the nearest subreaper), so its parent PID
// changes: Watch polls it, which works on Linux and macOS alike, needs no
// privilege, and cannot be fooled by the parent's threads (as the parent
// death signal of prctl can).
package lifeline

import (
	"context"
	"time"
)

// DefaultInterval is how often the provider looks at its parent PID: it
// exits within about this long after its Terraform is gone.
const DefaultInterval = time.Second

// Gone says that the parent a process started with is gone.
type Gone struct {
	// Was is the parent PID at start; Now the one the process has now.
	Was, Now int
	// After is how long the process had watched.
	After time.Duration
}

// Watch reads the parent PID with getppid at once and then every interval,
// and calls gone once, and returns, when it differs from the first one.
// It returns with no call when ctx ends.
func Watch(ctx context.Context, getppid func() int, interval time.Duration, gone func(Gone)) {
	start, was := time.Now(), getppid()
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			if now := getppid(); now != was {
				gone(Gone{Was: was, Now: now, After: time.Since(start)})
				return
			}
		}
	}
}
