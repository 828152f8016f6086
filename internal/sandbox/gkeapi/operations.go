package gkeapi

import (
	"fmt"
	"net/http"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

func (w *API) getContainerOperation(rw http.ResponseWriter, r *http.Request) {
	if r.PathValue("project") != w.Inv.Project || r.PathValue("location") != w.Inv.Region {
		googleapi.NotFound(rw, r.URL.Path)
		return
	}
	w.Mu.Lock()
	op, ok := w.Ops[r.PathValue("op")]
	w.Mu.Unlock()
	if !ok || op.API != "container" {
		googleapi.NotFound(rw, "operation "+r.PathValue("op"))
		return
	}
	w.writeContainerOperation(rw, op)
}

// writeContainerOperation answers with a GKE Operation.
func (w *API) writeContainerOperation(rw http.ResponseWriter, op *cloud.Operation) {
	w.Mu.Lock()
	out := w.containerOperationJSON(op)
	w.Mu.Unlock()
	googleapi.WriteJSON(rw, http.StatusOK, out)
}

// containerOperationJSON renders a GKE Operation. Callers hold w.Mu.
func (w *API) containerOperationJSON(op *cloud.Operation) map[string]any {
	out := map[string]any{
		"name":          op.Name,
		"operationType": op.Type,
		"status":        "RUNNING",
		"location":      w.Inv.Region,
		"zone":          w.Inv.Region, // the deprecated name of location, still written; gcloud lists it
		"selfLink":      fmt.Sprintf("https://container.googleapis.com/v1/projects/%s/locations/%s/operations/%s", w.Inv.Project, w.Inv.Region, op.Name),
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
