package kernel

import (
	"errors"
	"net/http"
	"testing"

	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
)

func TestAPIErrorHelpers(t *testing.T) {
	t.Parallel()
	unwrapped, _ := apierror.ParseError(&googleapi.Error{Code: http.StatusNotFound, Message: "no such block"}, false)
	for _, tc := range []struct {
		name     string
		err      error
		notFound bool
		message  string
	}{
		{"googleapi 404", &googleapi.Error{Code: 404, Message: "missing"}, true, "missing"},
		{"googleapi 404 without message", &googleapi.Error{Code: 404}, true, "googleapi: got HTTP response code 404 with body: "},
		{"gax 404 with status only", unwrapped, true, "no such block"},
		{"wrapped googleapi 409", errors.Join(errors.New("ctx"), &googleapi.Error{Code: 409, Message: "exists"}), false, "exists"},
		{"plain", errors.New("boom"), false, "boom"},
		{"nil", nil, false, ""},
	} {
		if got := IsNotFound(tc.err); got != tc.notFound {
			t.Errorf("%s: isNotFound = %v, want %v", tc.name, got, tc.notFound)
		}
		if tc.err == nil {
			continue
		}
		if got := APIMessage(tc.err); got != tc.message {
			t.Errorf("%s: apiMessage = %q, want %q", tc.name, got, tc.message)
		}
	}
}
