package sandbox

import (
	"sync/atomic"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// The control endpoint (control.go) answers in the Google APIs' shapes.
var (
	writeJSON        = googleapi.WriteJSON
	writeGoogleError = googleapi.WriteError
	badRequest       = googleapi.BadRequest
)

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
