package googleapi

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// Front wraps an emulated API as Google's front end stands before it: it
// checks the bearer token, counts the request, applies the API's injected
// faults (faults picks them out of the world's: errors, latency, hostile
// answers, held operations), and logs every request it refuses
// (RefusalLogged).
func Front(w *cloud.World, api string, faults func(*cloud.Faults) *cloud.APIFaults, next http.Handler) http.Handler {
	return RefusalLogged(api, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+w.Token {
			WriteError(rw, http.StatusUnauthorized, "UNAUTHENTICATED",
				"Request had invalid authentication credentials: use the sandbox access token", "authError")
			return
		}
		countRequest(w, api, r)
		w.Mu.Lock()
		fp := faults(&w.Faults)
		f := *fp
		lost := r.Method == http.MethodPost && fp.ApplyThen503 > 0
		if lost {
			fp.ApplyThen503--
		}
		hold := startsOperation(r) && fp.TakeHold()
		w.Mu.Unlock()
		// giveBack returns a hold taken for a request that starts no
		// operation after all (it was not served, or its answer was lost).
		giveBack := func() {
			if !hold {
				return
			}
			w.Mu.Lock()
			faults(&w.Faults).HoldOperations++
			w.Mu.Unlock()
		}
		if f.NoAnswer {
			// Return, having written nothing, when the client gives up or
			// the server stops: the server's Close ends the connection,
			// and with it the request's context.
			giveBack()
			<-r.Context().Done()
			return
		}
		if f.LatencyMs > 0 {
			w.Wait(cloud.Delay{Kind: cloud.DelayLatency, Of: api + " " + r.Method + " " + r.URL.Path, For: time.Duration(f.LatencyMs) * time.Millisecond})
		}
		switch fault := w.InjectFault(api, f, r); fault {
		case cloud.FaultNone:
		case cloud.Fault429:
			giveBack()
			WriteFault(rw, http.StatusTooManyRequests)
			return
		case cloud.Fault503:
			giveBack()
			WriteFault(rw, http.StatusServiceUnavailable)
			return
		default:
			giveBack()
			writeHostile(rw, r, next, fault)
			return
		}
		if lost {
			giveBack()
			// The request is served, and its answer lost: the client sees a
			// 503 for a create that was made.
			next.ServeHTTP(NewDiscardResponse(), r)
			WriteError(rw, http.StatusServiceUnavailable, "UNAVAILABLE",
				"The service is currently unavailable (sandbox fault: the request was applied)", "backendError")
			return
		}
		if hold || w.Held.Any(api) {
			servePossiblyHeld(w, api, heldFor(hold, f), giveBack, rw, r, next)
			return
		}
		next.ServeHTTP(rw, r)
	}))
}

// countRequest counts a request as "api VERB kind", where kind is the last
// collection name in the path (e.g. "compute GET reservationSubBlocks").
func countRequest(w *cloud.World, api string, r *http.Request) {
	key := api + " " + r.Method + " " + RequestKind(r.URL.Path)
	c, _ := w.Requests.LoadOrStore(key, new(atomic.Int64))
	if counter, ok := c.(*atomic.Int64); ok {
		counter.Add(1)
	}
}

// WriteFault answers a request with an injected fault (a 429 or a 503), in
// the APIs' error shape.
func WriteFault(w http.ResponseWriter, status int) {
	if status == http.StatusTooManyRequests {
		WriteError(w, status, "RESOURCE_EXHAUSTED", "Rate Limit Exceeded (sandbox fault)", "rateLimitExceeded")
		return
	}
	WriteError(w, http.StatusServiceUnavailable, "UNAVAILABLE", "The service is currently unavailable (sandbox fault)", "backendError")
}
