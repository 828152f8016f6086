package sandbox

import (
	"testing"
)

// A formed slice follows its partitions' health.
func TestSliceFollowsPartitionHealth(t *testing.T) {
	needSandbox(t)
	ids := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a2")
	createSlice(t, "healthy", "4x4x4", ids, nil)
	waitSliceState(t, "healthy", ReasonActive)
	ctx := testContext(t)
	set := func(health string) {
		if err := testSandbox.SetHostHealth(ctx, "tpu7x-reservation", "block-a", "sub-block-a2", 7, health); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { set(HostHealthy) })
	set(HostDegraded)
	obj := waitSliceState(t, "healthy", ReasonActiveDegraded)
	if readyCondition(obj)["status"] != "True" {
		t.Errorf("ACTIVE_DEGRADED must be usable (Ready True): %v", readyCondition(obj))
	}
	set(HostHealthy)
	waitSliceState(t, "healthy", ReasonActive)
	set(HostUnhealthy)
	waitSliceState(t, "healthy", ReasonFailed)
}
