package engine

import (
	"strings"
	"testing"
)

// The documented defaults of dynamic slicing, and its 4x4x4 rule.
func TestWorkloadPolicyDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want WorkloadPolicySpec }{
		{WorkloadPolicySpec{}, WorkloadPolicySpec{Type: "HIGH_THROUGHPUT", AcceleratorTopology: "4x4x4", AcceleratorTopologyMode: "PROVISION_ONLY"}},
		{WorkloadPolicySpec{Type: "HIGH_AVAILABILITY"}, WorkloadPolicySpec{Type: "HIGH_AVAILABILITY"}},
		{WorkloadPolicySpec{AcceleratorTopologyMode: "AUTO_CONNECT"}, WorkloadPolicySpec{Type: "HIGH_THROUGHPUT", AcceleratorTopology: "4x4x4", AcceleratorTopologyMode: "AUTO_CONNECT"}},
		{WorkloadPolicySpec{AcceleratorTopology: "4x4x8"}, WorkloadPolicySpec{Type: "HIGH_THROUGHPUT", AcceleratorTopology: "4x4x8", AcceleratorTopologyMode: "PROVISION_ONLY"}},
	} {
		if got := tc.in.WithDefaults(); got != tc.want {
			t.Errorf("%+v.WithDefaults() = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if err := CheckDynamicSlicing(WorkloadPolicySpec{AcceleratorTopology: "4x4x8"}.WithDefaults()); err == nil || !strings.Contains(err.Error(), `use "4x4x4"`) {
		t.Errorf("4x4x8 with PROVISION_ONLY: %v, want the 4x4x4 rule", err)
	}
	if err := CheckDynamicSlicing(WorkloadPolicySpec{}.WithDefaults()); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	if err := CheckDynamicSlicing(WorkloadPolicySpec{AcceleratorTopology: "4x4x8", AcceleratorTopologyMode: "AUTO_CONNECT"}); err != nil {
		t.Errorf("4x4x8 with AUTO_CONNECT: %v", err)
	}
}
