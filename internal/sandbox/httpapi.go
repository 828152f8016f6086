package sandbox

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// The control endpoint (control.go) answers in the Google APIs' shapes.
var (
	writeJSON        = googleapi.WriteJSON
	writeGoogleError = googleapi.WriteError
	badRequest       = googleapi.BadRequest
)

// googleAPI wraps an emulated API: it checks the bearer token, counts the
// request, applies the API's injected faults, and logs every request it
// refuses (refusalLogged).
func (w *world) googleAPI(name string, faults func(*Faults) *APIFaults, next http.Handler) http.Handler {
	return googleapi.RefusalLogged(name, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+w.Token {
			writeGoogleError(rw, http.StatusUnauthorized, "UNAUTHENTICATED",
				"Request had invalid authentication credentials: use the sandbox access token", "authError")
			return
		}
		w.countRequest(name, r)
		w.Mu.Lock()
		fp := faults(&w.Faults)
		f := *fp
		lost := r.Method == http.MethodPost && fp.ApplyThen503 > 0
		if lost {
			fp.ApplyThen503--
		}
		w.Mu.Unlock()
		if f.NoAnswer {
			holdUnanswered(r)
			return
		}
		if f.LatencyMs > 0 {
			time.Sleep(time.Duration(f.LatencyMs) * time.Millisecond)
		}
		if status := w.InjectFault(name, f, r); status != 0 {
			writeFault(rw, status)
			return
		}
		if lost {
			// The request is served, and its answer lost: the client sees a
			// 503 for a create that was made.
			next.ServeHTTP(googleapi.NewDiscardResponse(), r)
			writeGoogleError(rw, http.StatusServiceUnavailable, "UNAVAILABLE",
				"The service is currently unavailable (sandbox fault: the request was applied)", "backendError")
			return
		}
		next.ServeHTTP(rw, r)
	}))
}

// countRequest counts a request as "api VERB kind", where kind is the last
// collection name in the path (e.g. "compute GET reservationSubBlocks").
func (w *world) countRequest(api string, r *http.Request) {
	key := api + " " + r.Method + " " + googleapi.RequestKind(r.URL.Path)
	c, _ := w.Requests.LoadOrStore(key, new(atomic.Int64))
	if counter, ok := c.(*atomic.Int64); ok {
		counter.Add(1)
	}
}

// RequestCounts returns the number of GKE and Compute API requests served,
// by "api VERB kind".
func (sb *Sandbox) RequestCounts() map[string]int64 {
	out := map[string]int64{}
	sb.world.Requests.Range(func(k, v any) bool {
		key, _ := k.(string)
		if counter, ok := v.(*atomic.Int64); ok {
			out[key] = counter.Load()
		}
		return true
	})
	return out
}
