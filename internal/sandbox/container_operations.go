package sandbox

import (
	"fmt"
	"net/http"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

func (w *world) getContainerOperation(rw http.ResponseWriter, r *http.Request) {
	if r.PathValue("project") != w.inv.Project || r.PathValue("location") != w.inv.Region {
		googleapi.NotFound(rw, r.URL.Path)
		return
	}
	w.mu.Lock()
	op, ok := w.ops[r.PathValue("op")]
	w.mu.Unlock()
	if !ok || op.API != "container" {
		googleapi.NotFound(rw, "operation "+r.PathValue("op"))
		return
	}
	w.writeContainerOperation(rw, op)
}

// writeContainerOperation answers with a GKE Operation.
func (w *world) writeContainerOperation(rw http.ResponseWriter, op *operation) {
	w.mu.Lock()
	out := w.containerOperationJSON(op)
	w.mu.Unlock()
	googleapi.WriteJSON(rw, http.StatusOK, out)
}

// containerOperationJSON renders a GKE Operation. Callers hold w.mu.
func (w *world) containerOperationJSON(op *operation) map[string]any {
	out := map[string]any{
		"name":          op.Name,
		"operationType": op.Type,
		"status":        "RUNNING",
		"location":      w.inv.Region,
		"zone":          w.inv.Region, // the deprecated name of location, still written; gcloud lists it
		"selfLink":      fmt.Sprintf("https://container.googleapis.com/v1/projects/%s/locations/%s/operations/%s", w.inv.Project, w.inv.Region, op.Name),
		"targetLink":    op.TargetLink,
		"startTime":     op.Started.UTC().Format(time.RFC3339Nano),
	}
	if op.Done {
		out["status"] = "DONE"
		out["endTime"] = op.Ended.UTC().Format(time.RFC3339Nano)
		if op.ErrMessage != "" {
			code := op.ErrCode
			if code >= 100 { // an HTTP status from an injected fault
				code = rpcInternal
			}
			out["error"] = map[string]any{"code": code, "message": op.ErrMessage}
			out["statusMessage"] = op.ErrMessage
		}
	}
	return out
}
