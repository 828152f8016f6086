package computeapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// operationWaitLimit is how long operations.wait waits before answering
// with a still-running operation (Compute Engine waits up to two minutes;
// the sandbox answers sooner so that tests stay quick).
const operationWaitLimit = 2 * time.Second

// operationErrorJSON is Operation.error.
type operationErrorJSON struct {
	Errors []operationErrorItemJSON `json:"errors"`
}

type operationErrorItemJSON struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// operationJSON is an Operation as the API writes it.
type operationJSON struct {
	Kind                string              `json:"kind"`
	ID                  string              `json:"id"`
	Name                string              `json:"name"`
	OperationType       string              `json:"operationType"`
	Status              string              `json:"status"`
	Progress            int                 `json:"progress"`
	TargetLink          string              `json:"targetLink"`
	SelfLink            string              `json:"selfLink"`
	Region              string              `json:"region,omitempty"`
	Zone                string              `json:"zone,omitempty"`
	User                string              `json:"user"`
	InsertTime          string              `json:"insertTime"`
	StartTime           string              `json:"startTime"`
	EndTime             string              `json:"endTime,omitempty"`
	Error               *operationErrorJSON `json:"error,omitempty"`
	HTTPErrorStatusCode int                 `json:"httpErrorStatusCode,omitempty"`
	HTTPErrorMessage    string              `json:"httpErrorMessage,omitempty"`
}

// sandboxUser is the account that makes every change, as an operation's
// user names the caller: the sandbox token stands for one service account.
func sandboxUser(project string) string {
	return "sandbox-admin@" + project + ".iam.gserviceaccount.com"
}

// operationJSON renders a compute operation. Callers hold w.Mu.
func (w *API) operationJSON(op *cloud.Operation) operationJSON {
	scopeLink := computeLinkBase + "projects/" + w.Inv.Project + "/" + op.Scope
	out := operationJSON{
		Kind:          "compute#operation",
		ID:            computeID("operation", op.Name),
		Name:          op.Name,
		OperationType: op.Type,
		Status:        "RUNNING",
		TargetLink:    op.TargetLink,
		SelfLink:      scopeLink + "/operations/" + op.Name,
		User:          sandboxUser(w.Inv.Project),
		InsertTime:    op.Started.Format(computeTimeFormat),
		StartTime:     op.Started.Format(computeTimeFormat),
	}
	if strings.HasPrefix(op.Scope, "zones/") {
		out.Zone = scopeLink
	} else {
		out.Region = scopeLink
	}
	if op.Done {
		out.Status, out.Progress, out.EndTime = "DONE", 100, op.Ended.Format(computeTimeFormat)
		if op.ErrCode != 0 {
			code := computeErrorCodes[op.ErrCode]
			if code == "" {
				code = "INTERNAL_ERROR"
			}
			out.Error = &operationErrorJSON{Errors: []operationErrorItemJSON{{Code: code, Message: op.ErrMessage}}}
			out.HTTPErrorStatusCode = op.ErrCode
			out.HTTPErrorMessage = strings.ToUpper(http.StatusText(op.ErrCode))
		}
	}
	return out
}

// computeErrorCodes are the Operation.error codes Compute Engine gives
// for HTTP statuses.
var computeErrorCodes = map[int]string{
	http.StatusBadRequest:          "INVALID_USAGE",
	http.StatusNotFound:            "RESOURCE_NOT_FOUND",
	http.StatusConflict:            "RESOURCE_ALREADY_EXISTS",
	http.StatusTooManyRequests:     "RATE_LIMIT_EXCEEDED",
	http.StatusInternalServerError: "INTERNAL_ERROR",
	http.StatusServiceUnavailable:  "UNAVAILABLE",
}

func (w *API) writeComputeOperation(rw http.ResponseWriter, op *cloud.Operation) {
	w.Mu.Lock()
	out := w.operationJSON(op)
	w.Mu.Unlock()
	googleapi.WriteJSON(rw, http.StatusOK, out)
}

// findComputeOperation returns the named compute operation of the
// request's region or zone, or nil.
func (w *API) findComputeOperation(r *http.Request) *cloud.Operation {
	scope := "regions/" + r.PathValue("region")
	if strings.Contains(r.Pattern, "{zone}") {
		scope = "zones/" + r.PathValue("zone")
	}
	w.Mu.Lock()
	defer w.Mu.Unlock()
	op, ok := w.Ops[r.PathValue("operation")]
	if !ok || op.API != "compute" || op.Scope != scope {
		return nil
	}
	return op
}

func (w *API) operationDone(op *cloud.Operation) bool {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	return op.Done
}

func (w *API) getComputeOperation(rw http.ResponseWriter, r *http.Request) {
	op := w.findComputeOperation(r)
	if op == nil {
		googleapi.NotFound(rw, r.URL.Path[strings.Index(r.URL.Path, "projects/"):])
		return
	}
	w.writeComputeOperation(rw, op)
}

// waitComputeOperation answers when the operation is done, or after
// operationWaitLimit with the operation still running, as
// operations.wait does.
func (w *API) waitComputeOperation(rw http.ResponseWriter, r *http.Request) {
	op := w.findComputeOperation(r)
	if op == nil {
		googleapi.NotFound(rw, strings.TrimSuffix(r.URL.Path[strings.Index(r.URL.Path, "projects/"):], "/wait"))
		return
	}
	deadline := time.NewTimer(operationWaitLimit)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !w.operationDone(op) {
		select {
		case <-tick.C:
		case <-deadline.C:
			w.writeComputeOperation(rw, op)
			return
		case <-r.Context().Done():
			return
		}
	}
	w.writeComputeOperation(rw, op)
}
