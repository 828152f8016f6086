package topology

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckWorkload(t *testing.T) {
	for _, tc := range []struct {
		topo, access string
		pods, perPod int64
		rule         Rule
		text         string // part of the message; "" when the workload fits
	}{
		// Fits: one pod per host with 4 chips, or more pods with fewer chips.
		{topo: "4x4x8", access: AccessDevicePlugin, pods: 32, perPod: 4},
		{topo: "4x4x8", access: "", pods: 64, perPod: 2},
		{topo: "2x2x1", access: AccessDevicePlugin, pods: 4, perPod: 1},
		{topo: "2x2x2", access: AccessDRA, pods: 2, perPod: 4},
		// Too few pods: the numbers on both sides and what to run.
		{topo: "4x4x8", access: AccessDevicePlugin, pods: 16, perPod: 4, rule: RuleWorkloadChips,
			text: "a 4x4x8 slice has 128 chips, and 16 pod(s) × 4 google.com/tpu per pod = 64: run 32 pods (one per host) with 4 google.com/tpu each"},
		{topo: "2x2x2", access: AccessDevicePlugin, pods: 3, perPod: 4, rule: RuleWorkloadChips, text: "= 12: run 2 pods"},
		// Chips that do not fill a host evenly, or more than a host has.
		{topo: "4x4x4", access: AccessDevicePlugin, pods: 8, perPod: 8, rule: RuleChipsPerPod, text: "a pod cannot ask for 8 google.com/tpu: a tpu7x host has 4 chips"},
		{topo: "4x4x12", access: AccessDevicePlugin, pods: 64, perPod: 3, rule: RuleChipsPerPod, text: "chips per pod must be 1, 2 or 4"},
		{topo: "4x4x4", access: AccessDevicePlugin, pods: 16, perPod: 0, rule: RuleChipsPerPod, text: "cannot ask for 0"},
		{topo: "4x4x4", access: AccessDevicePlugin, pods: 0, perPod: 4, rule: RulePods, text: "at least one pod, not 0"},
		// DRA: a claim takes a whole host, so pods = hosts and 4 chips each.
		{topo: "4x4x8", access: AccessDRA, pods: 64, perPod: 2, rule: RuleChipsPerPod, text: `with device_access = "dra" a pod's claim takes all 4 chips of its host, not 2`},
		{topo: "4x4x8", access: AccessDRA, pods: 16, perPod: 4, rule: RuleWorkloadHosts, text: "a 4x4x8 slice has 32 hosts"},
	} {
		topo, err := ParseTPU7x(tc.topo)
		if err != nil {
			t.Fatal(err)
		}
		err = topo.CheckWorkload(tc.access, tc.pods, tc.perPod)
		name := tc.topo + "/" + tc.access
		if tc.text == "" {
			if err != nil {
				t.Errorf("%s: %d pods × %d chips refused: %v", name, tc.pods, tc.perPod, err)
			}
			continue
		}
		var we *WorkloadError
		if !errors.As(err, &we) {
			t.Errorf("%s: %d pods × %d chips: got %v, want a WorkloadError", name, tc.pods, tc.perPod, err)
			continue
		}
		if we.Rule != tc.rule || !strings.Contains(we.Error(), tc.text) {
			t.Errorf("%s: %d pods × %d chips: rule %q, %q; want rule %q with %q", name, tc.pods, tc.perPod, we.Rule, we.Error(), tc.rule, tc.text)
		}
		if we.Pods != tc.pods || we.ChipsPerPod != tc.perPod || we.Topology != topo {
			t.Errorf("%s: error carries %+v", name, we)
		}
	}
}
