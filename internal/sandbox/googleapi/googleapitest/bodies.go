// Package googleapitest holds what the tests of the emulated Google APIs
// (packages computeapi and gkeapi) share: running a request body through
// googleapi.AcceptBody and checking Google's answer to a refused one. Only
// _test.go files import it (depguard rule googleapitest).
package googleapitest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// AcceptRecorded runs googleapi.AcceptBody on body, POSTed to path, and
// returns what the handler would decode (nil when refused) and the
// recorded answer.
func AcceptRecorded(t *testing.T, spec googleapi.BodySpec, path, body string) ([]byte, *httptest.ResponseRecorder) {
	t.Helper()
	rw := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	out, ok := googleapi.AcceptBody(rw, r, spec)
	if !ok {
		return nil, rw
	}
	return out, rw
}

// WantRefused checks GCP's answer to a field no API version defines: a 400
// INVALID_ARGUMENT with message, and one field violation at field. what
// names the case in the failure.
func WantRefused(t *testing.T, what string, rw *httptest.ResponseRecorder, message, field string) {
	t.Helper()
	var body struct {
		Error struct {
			Status, Message string
			Details         []struct {
				FieldViolations []struct{ Field, Description string }
			}
		}
	}
	if err := json.Unmarshal(rw.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s: answer %d %q is not JSON: %v", what, rw.Code, rw.Body, err)
	}
	e := body.Error
	if rw.Code != http.StatusBadRequest || e.Status != "INVALID_ARGUMENT" || e.Message != message ||
		len(e.Details) != 1 || len(e.Details[0].FieldViolations) != 1 || e.Details[0].FieldViolations[0].Field != field {
		t.Errorf("%s: answer %d %s; want 400 INVALID_ARGUMENT %q at %q", what, rw.Code, rw.Body, message, field)
	}
}
