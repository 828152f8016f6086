package clients

import (
	"context"
	"sync/atomic"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// retryRecord is where RetryTransport notes, for a caller that put it on
// a request's context (withRetryRecord), the attempt whose answer it
// returned: an answer to attempt 2 or later is one to a repeated request.
type retryRecord struct{ attempt atomic.Int32 }

type retryRecordKey struct{}

// withRetryRecord is ctx carrying a new retryRecord, for one request.
func withRetryRecord(ctx context.Context) (context.Context, *retryRecord) {
	r := &retryRecord{}
	return context.WithValue(ctx, retryRecordKey{}, r), r
}

// retryRecordOf is the retryRecord on ctx, or nil.
func retryRecordOf(ctx context.Context) *retryRecord {
	r, _ := ctx.Value(retryRecordKey{}).(*retryRecord)
	return r
}

// answered notes that the answer returned is attempt's.
func (r *retryRecord) answered(attempt int) { r.attempt.Store(int32(attempt)) }

// answeredAttempt is the attempt whose answer was returned (from 1; 0
// before an answer).
func (r *retryRecord) answeredAttempt() int { return int(r.attempt.Load()) }

// retried says whether the answer returned was to a repeated request.
func (r *retryRecord) retried() bool { return r.answeredAttempt() > 1 }

// createErr is the error of a create whose request carried r: when the
// answer was to a repeated request, an *kernel.RetriedCreateError (a 409
// then means the first attempt created the object).
func (r *retryRecord) createErr(err error) error {
	if err == nil || !r.retried() {
		return err
	}
	return &kernel.RetriedCreateError{Attempts: r.answeredAttempt(), Err: err}
}
