package day2

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// maintenanceAfterRetry is a Compute API whose performMaintenance answers
// an error; applied says whether the request had been applied all the same
// (an attempt whose connection dropped, and whose retry was refused).
type maintenanceAfterRetry struct {
	*enginetest.Compute
	applied bool
}

func (m *maintenanceAfterRetry) PerformSubBlockMaintenance(_ context.Context, _, _, _, _, subBlock string) (kernel.Operation, error) {
	if m.applied {
		m.SetBlock(enginetest.SubBlockInMaintenance(subBlock, "ONGOING"))
	}
	return nil, errors.New("googleapi: Error 400: no maintenance is pending on the sub-block")
}

func (m *maintenanceAfterRetry) PerformBlockMaintenance(context.Context, string, string, string, string, string) (kernel.Operation, error) {
	return nil, errors.New("not used")
}

func (m *maintenanceAfterRetry) ReportSubBlockFaulty(context.Context, string, string, string, string, string, *computepb.ReservationSubBlocksReportFaultyRequest) (kernel.Operation, error) {
	return nil, errors.New("not used")
}

func (m *maintenanceAfterRetry) ReportHostAsFaulty(context.Context, string, string, string, *computepb.InstancesReportHostAsFaultyRequest) (kernel.Operation, error) {
	return nil, errors.New("not used")
}

// A request to start maintenance that fails although an earlier attempt
// of it was applied (nothing is pending any more) reports the maintenance
// started; one that left it pending reports the failure.
func TestPerformMaintenanceAfterARetry(t *testing.T) {
	t.Parallel()
	for _, applied := range []bool{true, false} {
		c := &maintenanceAfterRetry{Compute: enginetest.NewCompute(), applied: applied}
		c.SetBlock(enginetest.SubBlockInMaintenance("sb-a", "PENDING"))
		e := newTestOps(t, c, nil, clusterread.Fixed(nil, nil))
		var said []string
		_, err := e.PerformMaintenance(t.Context(), MaintenanceRequest{Project: enginetest.Project, Zone: enginetest.Zone, Reservation: enginetest.Reservation,
			Block: enginetest.Block, SubBlock: "sb-a"}, func(m string) { said = append(said, m) })
		switch {
		case applied && err != nil:
			t.Errorf("maintenance started by an earlier attempt: %v", err)
		case applied && !strings.Contains(strings.Join(said, "\n"), "an earlier attempt started it"):
			t.Errorf("progress %q does not say an earlier attempt started the maintenance", said)
		case !applied && (err == nil || !strings.Contains(err.Error(), "no maintenance is pending on the sub-block")):
			t.Errorf("maintenance left pending: %v, want the API's error", err)
		}
	}
}
