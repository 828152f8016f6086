package googleapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// DiscardResponse is a ResponseWriter that drops the answer; make it with
// NewDiscardResponse.
type DiscardResponse struct{ header http.Header }

// NewDiscardResponse returns a DiscardResponse.
func NewDiscardResponse() DiscardResponse { return DiscardResponse{header: http.Header{}} }

func (d DiscardResponse) Header() http.Header         { return d.header }
func (d DiscardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d DiscardResponse) WriteHeader(int)             {}

// requestKinds are the collections RequestKind tells apart: each counts
// as a kind of its own, a sub-block's reservationSlots too (not as the
// reservationSubBlocks above them).
var requestKinds = map[string]bool{
	"resourcePolicies": true, "operations": true, "reservations": true, "reservationBlocks": true,
	"reservationSubBlocks": true, "reservationSlots": true, "clusters": true, "nodePools": true, "instanceGroupManagers": true,
}

// RequestKind is the last collection segment of a REST path: for
// /compute/v1/projects/p/zones/z/reservations/r it is "reservations", and
// for .../reservationSubBlocks/s/reservationSlots/slot-00/getHealth it is
// "reservationSlots".
func RequestKind(path string) string {
	kind := "other"
	for _, p := range strings.Split(strings.Trim(path, "/"), "/") {
		if requestKinds[p] {
			kind = p
		}
	}
	return kind
}

// SlashesUnescaped routes a path whose segments hold escaped slashes (%2F)
// as if the slashes were plain. Some API parameters are resource paths of
// their own (a reservation sub-block's parent is
// reservations/R/reservationBlocks/B): the Go clients put them in the URL
// as they are, gcloud escapes them into one segment, and Google's front end
// serves both. http.ServeMux matches on the escaped path, so without this
// the escaped form would miss every pattern. No resource name holds a
// slash, so nothing else changes.
func SlashesUnescaped(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.Contains(strings.ToUpper(r.URL.RawPath), "%2F") {
			r.URL.RawPath = ""
		}
		next.ServeHTTP(rw, r)
	})
}

// RefusalLogged logs every request of the api that is answered with an
// error (a status of 400 or more): its method, path, status and the
// error's message, to google-apis.log beside the notes on ignored fields.
func RefusalLogged(api string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rec := &refusalRecorder{ResponseWriter: rw}
		next.ServeHTTP(rec, r)
		if rec.status < http.StatusBadRequest {
			return
		}
		var body struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(rec.body.Bytes(), &body)
		Logf("%s %s %s: refused %d: %s", api, r.Method, r.URL.Path, rec.status, body.Error.Message)
	})
}

// refusalRecorder passes an answer through, keeping its status and, for an
// error, its body.
type refusalRecorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (rr *refusalRecorder) WriteHeader(status int) {
	rr.status = status
	rr.ResponseWriter.WriteHeader(status)
}

func (rr *refusalRecorder) Write(b []byte) (int, error) {
	if rr.status == 0 {
		rr.status = http.StatusOK
	}
	if rr.status >= http.StatusBadRequest && rr.body.Len() < 64<<10 {
		rr.body.Write(b)
	}
	return rr.ResponseWriter.Write(b)
}
