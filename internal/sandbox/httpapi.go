package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// writeJSON answers with a JSON document.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeGoogleError answers in the error shape every Google REST API uses,
// which the Go clients turn into *googleapi.Error / apierror.APIError.
func writeGoogleError(w http.ResponseWriter, code int, status, message, reason string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{
		"code":    code,
		"message": message,
		"status":  status,
		"errors":  []map[string]string{{"message": message, "domain": "global", "reason": reason}},
	}})
}

func notFound(w http.ResponseWriter, what string) {
	writeGoogleError(w, http.StatusNotFound, "NOT_FOUND", "The resource '"+what+"' was not found", "notFound")
}

func badRequest(w http.ResponseWriter, message string) {
	writeGoogleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", message, "invalid")
}

func conflict(w http.ResponseWriter, message string) {
	writeGoogleError(w, http.StatusConflict, "ALREADY_EXISTS", message, "alreadyExists")
}

// googleAPI wraps an emulated API: it checks the bearer token, counts the
// request, applies the API's injected faults, and logs every request it
// refuses (refusalLogged).
func (w *world) googleAPI(name string, faults func(*Faults) *APIFaults, next http.Handler) http.Handler {
	return refusalLogged(name, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+w.token {
			writeGoogleError(rw, http.StatusUnauthorized, "UNAUTHENTICATED",
				"Request had invalid authentication credentials: use the sandbox access token", "authError")
			return
		}
		w.countRequest(name, r)
		w.mu.Lock()
		fp := faults(&w.faults)
		f := *fp
		lost := r.Method == http.MethodPost && fp.ApplyThen503 > 0
		if lost {
			fp.ApplyThen503--
		}
		w.mu.Unlock()
		if f.NoAnswer {
			holdUnanswered(r)
			return
		}
		if f.LatencyMs > 0 {
			time.Sleep(time.Duration(f.LatencyMs) * time.Millisecond)
		}
		if status := w.injectFault(name, f, r); status != 0 {
			writeFault(rw, status)
			return
		}
		if lost {
			// The request is served, and its answer lost: the client sees a
			// 503 for a create that was made.
			next.ServeHTTP(discardResponse{header: http.Header{}}, r)
			writeGoogleError(rw, http.StatusServiceUnavailable, "UNAVAILABLE",
				"The service is currently unavailable (sandbox fault: the request was applied)", "backendError")
			return
		}
		next.ServeHTTP(rw, r)
	}))
}

// discardResponse is a ResponseWriter that drops the answer.
type discardResponse struct{ header http.Header }

func (d discardResponse) Header() http.Header         { return d.header }
func (d discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d discardResponse) WriteHeader(int)             {}

// countRequest counts a request as "api VERB kind", where kind is the last
// collection name in the path (e.g. "compute GET reservationSubBlocks").
func (w *world) countRequest(api string, r *http.Request) {
	key := api + " " + r.Method + " " + requestKind(r.URL.Path)
	c, _ := w.requests.LoadOrStore(key, new(atomic.Int64))
	if counter, ok := c.(*atomic.Int64); ok {
		counter.Add(1)
	}
}

// requestKind is the last collection segment of a REST path: for
// /compute/v1/projects/p/zones/z/reservations/r it is "reservations".
func requestKind(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	collections := map[string]bool{
		"resourcePolicies": true, "operations": true, "reservations": true, "reservationBlocks": true,
		"reservationSubBlocks": true, "clusters": true, "nodePools": true, "instanceGroupManagers": true,
	}
	kind := "other"
	for _, p := range parts {
		if collections[p] {
			kind = p
		}
	}
	return kind
}

// RequestCounts returns the number of GKE and Compute API requests served,
// by "api VERB kind".
func (sb *Sandbox) RequestCounts() map[string]int64 {
	out := map[string]int64{}
	sb.world.requests.Range(func(k, v any) bool {
		key, _ := k.(string)
		if counter, ok := v.(*atomic.Int64); ok {
			out[key] = counter.Load()
		}
		return true
	})
	return out
}

// slashesUnescaped routes a path whose segments hold escaped slashes (%2F)
// as if the slashes were plain. Some API parameters are resource paths of
// their own (a reservation sub-block's parent is
// reservations/R/reservationBlocks/B): the Go clients put them in the URL
// as they are, gcloud escapes them into one segment, and Google's front end
// serves both. http.ServeMux matches on the escaped path, so without this
// the escaped form would miss every pattern. No resource name holds a
// slash, so nothing else changes.
func slashesUnescaped(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.Contains(strings.ToUpper(r.URL.RawPath), "%2F") {
			r.URL.RawPath = ""
		}
		next.ServeHTTP(rw, r)
	})
}

// refusalLogged logs every request of the api that is answered with an
// error (a status of 400 or more): its method, path, status and the
// error's message, to google-apis.log beside the notes on ignored fields.
func refusalLogged(api string, next http.Handler) http.Handler {
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
		logf("%s %s %s: refused %d: %s", api, r.Method, r.URL.Path, rec.status, body.Error.Message)
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
