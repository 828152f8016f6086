package googleapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// The answers a broken proxy or front end gives instead of an API's
// (cloud.APIFaults' RateCutJSON, RateProxyPage, RateEmpty200,
// RateWrongShape), and the operations that never finish (HoldOperations).

// ProxyErrorPage is the page a proxy answers with when it cannot reach
// what stands behind it.
const ProxyErrorPage = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n" +
	"<hr><center>sandbox-proxy (sandbox fault)</center>\r\n</body>\r\n</html>\r\n"

// writeHostile answers r with fault (one of cloud's hostile faults),
// serving it through next first when the fault comes after the API
// served the request.
func writeHostile(rw http.ResponseWriter, r *http.Request, next http.Handler, fault string) {
	switch fault {
	case cloud.FaultProxyPage:
		rw.Header().Set("Content-Type", "text/html")
		rw.WriteHeader(http.StatusBadGateway)
		_, _ = rw.Write([]byte(ProxyErrorPage))
	case cloud.FaultEmpty200:
		next.ServeHTTP(NewDiscardResponse(), r)
		rw.Header().Set("Content-Length", "0")
		rw.WriteHeader(http.StatusOK)
	case cloud.FaultCutJSON:
		served := newBufferedResponse()
		next.ServeHTTP(served, r)
		body := served.body.Bytes()
		rw.Header().Set("Content-Type", "application/json; charset=UTF-8")
		rw.WriteHeader(served.status)
		// Half of it, and never a whole document: the connection ends
		// there, as a proxy that lost its upstream ends it.
		_, _ = rw.Write(body[:len(body)/2])
	case cloud.FaultWrongShape:
		served := newBufferedResponse()
		next.ServeHTTP(served, r)
		rw.Header().Set("Content-Type", "application/json; charset=UTF-8")
		rw.WriteHeader(http.StatusOK)
		_, _ = rw.Write(GatewayEnvelope(served.status, served.body.Bytes()))
	}
}

// GatewayEnvelope is the answer of a gateway that wraps what stands
// behind it in JSON of its own, a 200 whatever the API answered: valid
// JSON, of no shape the API gives.
func GatewayEnvelope(status int, body []byte) []byte {
	var data any = string(body)
	if json.Valid(body) {
		data = json.RawMessage(body)
	}
	b, err := json.Marshal(map[string]any{"upstreamStatus": status, "data": data, "gateway": "sandbox-proxy (sandbox fault)"})
	if err != nil {
		return []byte(`{"gateway":"sandbox-proxy (sandbox fault)"}`)
	}
	return append(b, '\n')
}

// bufferedResponse holds an answer for the front to rewrite.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newBufferedResponse() *bufferedResponse {
	return &bufferedResponse{header: http.Header{}, status: http.StatusOK}
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferedResponse) WriteHeader(status int)      { b.status = status }

// heldFor says whether a request takes a hold (hold) and for how long
// (the API's faults f): -1 for none, 0 for as long as the sandbox runs.
func heldFor(hold bool, f cloud.APIFaults) time.Duration {
	if !hold {
		return -1
	}
	return time.Duration(f.HoldOperationsMs) * time.Millisecond
}

// servePossiblyHeld serves r through next and shows every operation the
// api holds as RUNNING in its answer; when take is 0 or more, an operation
// the answer starts is held, for take when above 0 (the caller counted it
// against HoldOperations, and gets it back, through give, when the answer
// starts none).
func servePossiblyHeld(w *cloud.World, api string, take time.Duration, give func(), rw http.ResponseWriter, r *http.Request, next http.Handler) {
	served := newBufferedResponse()
	next.ServeHTTP(served, r)
	body := served.body.Bytes()
	var op map[string]any
	if served.status < 300 && json.Unmarshal(body, &op) == nil && isOperation(op) {
		name, _ := op["name"].(string)
		if take >= 0 {
			w.Held.Hold(api, name)
			if take > 0 {
				w.After(cloud.Delay{Kind: cloud.DelayHold, Of: api + " " + name, For: take}, func() { w.Held.Release(api, name) })
			}
			take = -1
		}
		if w.Held.Held(api, name) && op["status"] != "RUNNING" {
			op["status"] = "RUNNING"
			delete(op, "endTime")
			delete(op, "error")
			if _, ok := op["progress"]; ok {
				op["progress"] = 50
			}
			if b, err := json.Marshal(op); err == nil {
				body = append(b, '\n')
			}
		}
	}
	if take >= 0 {
		give()
	}
	for k, v := range served.header {
		rw.Header()[k] = v
	}
	rw.Header().Set("Content-Length", strconv.Itoa(len(body)))
	rw.WriteHeader(served.status)
	_, _ = rw.Write(body)
}

// isOperation says whether an answer is an operation of Compute (its kind)
// or of GKE (its operationType).
func isOperation(v map[string]any) bool {
	if _, ok := v["name"].(string); !ok {
		return false
	}
	if _, ok := v["status"].(string); !ok {
		return false
	}
	_, gke := v["operationType"]
	return v["kind"] == "compute#operation" || gke
}

// startsOperation says whether r may start an operation: a change that is
// not a wait or a cancel of one.
func startsOperation(r *http.Request) bool {
	return r.Method != http.MethodGet && r.Method != http.MethodHead && !strings.Contains(r.URL.Path, "/operations/")
}
