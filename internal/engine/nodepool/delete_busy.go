package nodepool

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// GKE refuses to delete a node pool while an operation on it runs (its
// create, say, when the create outlived its timeout): HTTP 400
// FAILED_PRECONDITION, "Operation operation-1516271572246-49958a11 is
// currently creating a node pool for cluster CLUSTER. Please wait and try
// again once it is done." ("is currently deleting a node pool" for a
// delete), as hashicorp/terraform-provider-google issues #975 and #10366
// show. The delete waits for that operation, within its own timeout, and
// is sent again.

// runningOperationRE finds the running operation in GKE's refusal: its
// name and what it does ("creating a node pool for cluster c").
var runningOperationRE = regexp.MustCompile(`Operation (\S+) is currently ([^.]+)\.`)

// busyOperation is the operation GKE named in refusing a delete.
type busyOperation struct {
	// name is the operation's (its last segment); doing what it does, as
	// GKE says it ("creating a node pool").
	name, doing string
}

// runningOperation is the operation that err, GKE's answer to a delete,
// says runs on the pool, if err is that refusal.
func runningOperation(err error) (busyOperation, bool) {
	if err == nil || kernel.HTTPStatus(err) != http.StatusBadRequest {
		return busyOperation{}, false
	}
	m := runningOperationRE.FindStringSubmatch(kernel.APIMessage(err))
	if m == nil {
		return busyOperation{}, false
	}
	return busyOperation{name: kernel.LastSegment(m[1]), doing: m[2]}, true
}

// awaitRunning waits, at the waiter's cadence, for the operation running
// on the pool id to end. How it ended does not matter (a failed create
// leaves a pool in ERROR, which the delete deletes); a wait that the
// delete's timeout ends is an error that names the operation and says to
// run the destroy again.
func (ps *Pools) awaitRunning(ctx context.Context, id, project, location string, running busyOperation) error {
	tflog.Info(ctx, "GKE refuses to delete the sub-block node pool while an operation on it runs: waiting for the operation to end",
		map[string]any{"node_pool": id, "operation": running.name, "doing": running.doing})
	err := ps.waiter.WaitGKE(ctx, ps.gke, project, location, &container.Operation{Name: running.name, Status: "RUNNING"}, nil)
	var failed *kernel.OperationError
	switch {
	case err == nil || errors.As(err, &failed):
		tflog.Info(ctx, "The operation on the sub-block node pool ended: deleting it", map[string]any{"node_pool": id, "operation": running.name})
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("deleting node pool %s: GKE refuses to delete it while operation %s is %s, and the delete's timeout ended first (%w). "+
			"Run `terraform destroy` (or the apply) again once the operation is done, or give the delete a longer timeout (timeouts.delete)",
			id, running.name, running.doing, err)
	default:
		return fmt.Errorf("deleting node pool %s: GKE refuses to delete it while operation %s is %s: %w", id, running.name, running.doing, err)
	}
}
