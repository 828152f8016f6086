package kernel

import (
	"errors"
	"fmt"
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

// ExistsError is a create that found an object of its name that is not
// the one the configuration declares: it was neither adopted nor changed.
// The handler says how to import it.
type ExistsError struct {
	// Kind is "node pool" or "Slice"; ID its full name.
	Kind, ID string
	// Differences say what differs, each as "what is X (configuration: Y)".
	Differences []string
	// ImportID is the ID terraform import takes for it.
	ImportID string
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s %s already exists and is not the one the configuration declares: %s. It was not adopted: import it "+
		"(import ID %s) and make the configuration match it, or give this one another name",
		e.Kind, e.ID, strings.Join(e.Differences, "; "), e.ImportID)
}
