package cloud

import "testing"

// A sub-block's 4x4x4 topology is AVAILABLE while free and healthy,
// RUNNING while a pool holds it, DEGRADED while a host is not healthy or
// maintenance is ongoing; a slot is UNAVAILABLE while its host is
// UNHEALTHY or maintenance is ongoing, and runs the VM of the pool's node
// on each of the pool's hosts.
func TestSlotsFollowTheSubBlock(t *testing.T) {
	t.Parallel()
	w := NewWorld(DefaultInventory(), "t")
	s := w.SubBlocks[0]
	if got := TopologyState(s); got != TopologyAvailable {
		t.Fatalf("free healthy sub-block: topology %s, want AVAILABLE", got)
	}
	for h := range HostsPerSubBlock {
		if got := SlotState(s, h); got != SlotActive {
			t.Errorf("slot %d of a healthy sub-block: %s, want ACTIVE", h, got)
		}
		if got := w.SlotInstance(s, h); got != "" {
			t.Errorf("slot %d of a free sub-block runs %q", h, got)
		}
	}
	w.NodePools["p"] = &NodePool{Name: "p", NodeCount: 12, SubBlock: s}
	s.NodePool = "p"
	if got := TopologyState(s); got != TopologyRunning {
		t.Errorf("held sub-block: topology %s, want RUNNING", got)
	}
	if got, want := w.SlotInstance(s, 3), w.NodeName("p", 3); got != want {
		t.Errorf("slot 3 runs %q, want the node's VM %q", got, want)
	}
	if got := w.SlotInstance(s, 12); got != "" {
		t.Errorf("slot 12 of a 12-node pool runs %q", got)
	}
	if got := w.RunningHosts(s); got != 12 {
		t.Errorf("running hosts %d, want 12", got)
	}
	s.Hosts[5] = HostDegraded
	if got, st := TopologyState(s), SlotState(s, 5); got != TopologyDegraded || st != SlotActive {
		t.Errorf("degraded host: topology %s slot %s, want DEGRADED ACTIVE", got, st)
	}
	s.Hosts[5] = HostUnhealthy
	if got := SlotState(s, 5); got != SlotUnavailable {
		t.Errorf("unhealthy host: slot %s, want UNAVAILABLE", got)
	}
	if got := SlotState(s, 4); got != SlotActive {
		t.Errorf("healthy host beside an unhealthy one: slot %s, want ACTIVE", got)
	}
	s.Hosts[5] = HostHealthy
	s.Maint.Status = MaintenanceOngoing
	if got, st := TopologyState(s), SlotState(s, 0); got != TopologyDegraded || st != SlotUnavailable {
		t.Errorf("ongoing maintenance: topology %s slot %s, want DEGRADED UNAVAILABLE", got, st)
	}
}

func TestSlotNames(t *testing.T) {
	t.Parallel()
	for h := range HostsPerSubBlock {
		if got := SlotIndex(SlotName(h)); got != h {
			t.Errorf("SlotIndex(SlotName(%d)) = %d", h, got)
		}
	}
	for _, bad := range []string{"slot-16", "slot-x1", "slot-1", "host-01", ""} {
		if got := SlotIndex(bad); got != -1 {
			t.Errorf("SlotIndex(%q) = %d, want -1", bad, got)
		}
	}
}
