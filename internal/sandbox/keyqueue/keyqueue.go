// Package keyqueue is the work loop of the sandbox's emulated controllers.
package keyqueue

import (
	"context"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// Queue is the work loop of the sandbox's controllers (the slice
// controller, the slice admission check): a rate-limited queue of keys,
// each handed to reconcile, which returns when to look again (0: not
// until the key is queued again) or an error (retried with the queue's
// exponential backoff).
type Queue struct {
	workqueue.TypedRateLimitingInterface[string]
}

// New is a queue named name whose failed keys are retried after
// base, doubling up to ceiling.
func New(name string, base, ceiling time.Duration) Queue {
	return Queue{workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](base, ceiling),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: name})}
}

// Run starts one worker that hands each key to reconcile until ctx ends,
// and shuts the queue down then. failed, when not nil, hears of each
// error (not those after ctx ended).
func (q Queue) Run(ctx context.Context, reconcile func(context.Context, string) (time.Duration, error), failed func(key string, err error)) {
	go func() {
		<-ctx.Done()
		q.ShutDown()
	}()
	go func() {
		for {
			key, shutdown := q.Get()
			if shutdown {
				return
			}
			after, err := reconcile(ctx, key)
			switch {
			case err != nil && ctx.Err() == nil:
				if failed != nil {
					failed(key, err)
				}
				q.AddRateLimited(key)
			case after > 0:
				q.Forget(key)
				q.AddAfter(key, after)
			default:
				q.Forget(key)
			}
			q.Done(key)
		}
	}()
}
