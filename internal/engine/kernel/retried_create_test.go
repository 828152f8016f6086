package kernel

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"google.golang.org/api/googleapi"
)

// Only a 409 answered to a create sent more than once is the answer to a
// create whose first attempt was applied.
func TestConflictAfterRetry(t *testing.T) {
	t.Parallel()
	conflict := &googleapi.Error{Code: http.StatusConflict, Message: "already exists"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"a 409 to a retried create", &RetriedCreateError{Attempts: 2, Err: conflict}, true},
		{"a wrapped 409 to a retried create", fmt.Errorf("creating: %w", &RetriedCreateError{Attempts: 3, Err: conflict}), true},
		{"a 409 to a first attempt", conflict, false},
		{"another error to a retried create", &RetriedCreateError{Attempts: 2, Err: &googleapi.Error{Code: http.StatusBadRequest}}, false},
		{"no error", nil, false},
	} {
		if got := ConflictAfterRetry(tc.err); got != tc.want {
			t.Errorf("%s: conflictAfterRetry = %v, want %v", tc.name, got, tc.want)
		}
	}
	// The typed value changes nothing of the error's text or status.
	err := error(&RetriedCreateError{Attempts: 2, Err: conflict})
	if err.Error() != conflict.Error() || HTTPStatus(err) != http.StatusConflict || APIMessage(err) != "already exists" || !errors.Is(err, conflict) {
		t.Errorf("a RetriedCreateError reads %q (status %d), want the answer's", err, HTTPStatus(err))
	}
}
