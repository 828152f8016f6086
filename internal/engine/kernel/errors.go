package kernel

import (
	"errors"
	"net/http"
	"strings"

	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
)

// ErrNotFound is returned when an object does not exist (any more).
var ErrNotFound = errors.New("not found")

// ErrNoAnswer marks a request that its endpoint took and never answered
// within the provider's request timeout (the clients' NoAnswerError is
// one). Waiting longer does not cure it within a plan.
var ErrNoAnswer = errors.New("no answer")

// IsNotFound reports whether err is a 404 from a Google API.
func IsNotFound(err error) bool { return HTTPStatus(err) == http.StatusNotFound }

// HTTPStatus is the HTTP status of a Google API's error, or 0.
func HTTPStatus(err error) int {
	var ae *apierror.APIError
	if errors.As(err, &ae) {
		return ae.HTTPCode()
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

// LastSegment is a name from a name or a self link (a workload policy's,
// say).
func LastSegment(s string) string { return s[strings.LastIndex(s, "/")+1:] }

// APIMessage is the API's own message for err, without the client's
// wrapping, or err's text.
func APIMessage(err error) string {
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Message != "" {
		return ge.Message
	}
	var ae *apierror.APIError
	if errors.As(err, &ae) {
		if s := ae.GRPCStatus(); s != nil && s.Message() != "" {
			return s.Message()
		}
	}
	return err.Error()
}
