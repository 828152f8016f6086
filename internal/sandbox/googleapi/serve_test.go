package googleapi

import (
	"bytes"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Every answer of 400 or more is logged with the request's method and
// path, the status and the error's message; other answers are not.
func TestRefusalLogged(t *testing.T) {
	var buf bytes.Buffer
	prev := SetLogger(log.New(&buf, "", 0))
	t.Cleanup(func() { SetLogger(prev) })
	h := RefusalLogged("compute", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			NotFound(rw, "projects/p/thing")
		case "/conflict":
			Conflict(rw, "it exists")
		default:
			WriteJSON(rw, http.StatusOK, map[string]any{"ok": true})
		}
	}))
	for _, path := range []string{"/missing", "/fine", "/conflict"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	}
	want := "compute GET /missing: refused 404: The resource 'projects/p/thing' was not found\n" +
		"compute GET /conflict: refused 409: it exists\n"
	if buf.String() != want {
		t.Errorf("log %q; want %q", buf.String(), want)
	}
}

func TestRequestKind(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/compute/v1/projects/p/zones/z/reservations/r":                                                                               "reservations",
		"/compute/v1/projects/p/zones/z/reservations/r/reservationBlocks/b/reservationSubBlocks":                                      "reservationSubBlocks",
		"/compute/v1/projects/p/zones/z/reservations/r/reservationBlocks/b/reservationSubBlocks/s":                                    "reservationSubBlocks",
		"/compute/v1/projects/p/zones/z/reservations/r/reservationBlocks/b/reservationSubBlocks/s/reservationSlots":                   "reservationSlots",
		"/compute/v1/projects/p/zones/z/reservations/r/reservationBlocks/b/reservationSubBlocks/s/reservationSlots/slot-00/getHealth": "reservationSlots",
		"/v1/projects/p/locations/l/clusters/c/nodePools/np":                                                                          "nodePools",
		"/v1/projects/p": "other",
	} {
		if got := RequestKind(path); got != want {
			t.Errorf("RequestKind(%s) = %s, want %s", path, got, want)
		}
	}
}
