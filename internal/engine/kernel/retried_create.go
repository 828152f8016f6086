package kernel

import (
	"errors"
	"net/http"

	"google.golang.org/api/googleapi"
)

// RetriedCreateError is the error answered to a create that the
// provider's retry transport sent more than once; the clients' adapters
// return it. Its text is Err's.
type RetriedCreateError struct {
	// Attempts is the attempt whose answer Err is (2 or more).
	Attempts int
	Err      error
}

func (e *RetriedCreateError) Error() string { return e.Err.Error() }

func (e *RetriedCreateError) Unwrap() error { return e.Err }

// ConflictAfterRetry says whether err is a 409 (already exists) that
// answered a retried create: the first attempt was applied and its answer
// lost, so the object is the provider's own, to adopt.
func ConflictAfterRetry(err error) bool {
	var ge *googleapi.Error
	var retried *RetriedCreateError
	return errors.As(err, &ge) && ge.Code == http.StatusConflict && errors.As(err, &retried)
}
