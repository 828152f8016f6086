package computeapi

import "testing"

// A host's report is checked as GCP checks it: the behaviors of a
// sub-block's report are not a host's, and the disruption schedule is
// required.
func TestCheckHostFaultyRequest(t *testing.T) {
	t.Parallel()
	if msg := checkFaultyRequest([]byte(`{"disruptionSchedule":"IMMEDIATE","faultReasons":[{"behavior":"GPU_ERROR"}]}`), nil, hostFaultBehaviors); msg == "" {
		t.Error("a host fault with behavior GPU_ERROR (a sub-block behavior) was accepted")
	}
	if msg := checkFaultyRequest([]byte(`{"faultReasons":[{"behavior":"CHIP_ERROR"}]}`), nil, hostFaultBehaviors); msg != "Required field 'resource.disruptionSchedule' not specified" {
		t.Errorf("no disruption schedule: %q", msg)
	}
	if msg := checkFaultyRequest([]byte(`{"disruptionSchedule":"IMMEDIATE","faultReasons":[{"behavior":"CHIP_ERROR","description":"ICI link down"}]}`), nil, hostFaultBehaviors); msg != "" {
		t.Errorf("a valid host fault was refused: %s", msg)
	}
}
