package tpuslice

import (
	"context"
	"errors"
	"fmt"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// sliceWaitLost turns a wait for Slice name whose lists and watches kept
// failing (err holds a WatchFailingError) into a ClusterAccessError that
// names the API server's host, the cause and the Slice's last state; nil
// when err is another error.
func (e *Slices) sliceWaitLost(ctx context.Context, name string, last *clusterread.Slice, err error) error {
	var failing *clusterread.WatchFailingError
	if !errors.As(err, &failing) {
		return nil
	}
	host := ""
	if c, cerr := e.cluster(ctx); cerr == nil {
		host = kernel.HostOf(c)
	}
	state := "not yet reported by the slice controller"
	if last != nil && last.State != "" {
		state = last.State
	}
	return &clusterread.ClusterAccessError{What: "Slices", Host: host, Err: fmt.Errorf("waiting for slice %s to become ACTIVE (its last state was %s): %w",
		name, state, failing), Advice: fmt.Sprintf("Check that the cluster's API server is running and reachable from here. "+
		"Slice %s was created before the API server stopped answering and stays in the state (after a create, "+
		"tainted: the next apply replaces it; once the API server answers again and the Slice is ACTIVE, "+
		"`terraform untaint` of its resource keeps it instead)", name)}
}
