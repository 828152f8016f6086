package topology

import (
	"fmt"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// How a workload's pods reach the chips of a slice.
const (
	// AccessDevicePlugin: each container asks for google.com/tpu, any
	// number from 1 to a host's 4 chips that divides 4.
	AccessDevicePlugin = "device_plugin"
	// AccessDRA: each pod claims every chip of its host through GKE's TPU
	// DRA driver (allocationMode All), so a slice runs one pod per host.
	AccessDRA = "dra"
)

// The rules a workload can break on a slice.
const (
	// RuleChipsPerPod: a pod asks for chips that do not fill a host evenly.
	RuleChipsPerPod Rule = "chips-per-pod"
	// RuleWorkloadChips: pods × chips per pod differs from the slice's chips.
	RuleWorkloadChips Rule = "workload-chips"
	// RuleWorkloadHosts: with DRA, pods differ from the slice's hosts.
	RuleWorkloadHosts Rule = "workload-hosts"
	// RulePods: no pods.
	RulePods Rule = "pods"
)

// WorkloadError reports a workload that does not fit its slice, with the
// numbers on both sides and what to run instead.
type WorkloadError struct {
	Topology    Topology
	Access      string
	Pods        int64
	ChipsPerPod int64
	Rule        Rule
	Detail      string
}

func (e *WorkloadError) Error() string { return e.Detail }

// CheckWorkload says whether pods, each with chipsPerPod chips, fill the
// slice t exactly, reached through access (AccessDevicePlugin, the default
// when empty, or AccessDRA). The device plugin needs pods × chips per pod
// equal to the slice's chips, with chips per pod dividing a host's 4; DRA
// claims all of a host's chips per pod, so it needs one pod per host and
// chips per pod equal to 4. It is what GKE's slice admission check refuses
// at admission, said at plan time.
func (t Topology) CheckWorkload(access string, pods, chipsPerPod int64) error {
	fail := func(rule Rule, format string, args ...any) error {
		return &WorkloadError{Topology: t, Access: access, Pods: pods, ChipsPerPod: chipsPerPod, Rule: rule, Detail: fmt.Sprintf(format, args...)}
	}
	hosts, chips := int64(t.Hosts()), int64(t.Chips())
	fix := fmt.Sprintf("run %d pods (one per host) with %d %s each", hosts, ChipsPerHost, wellknown.ResourceTPU)
	switch {
	case pods < 1:
		return fail(RulePods, "a workload on a %s slice needs at least one pod, not %d: %s", t, pods, fix)
	case access == AccessDRA && chipsPerPod != ChipsPerHost:
		return fail(RuleChipsPerPod,
			"with device_access = %q a pod's claim takes all %d chips of its host, not %d: set chips per pod to %d and run %d pods (one per host)",
			AccessDRA, ChipsPerHost, chipsPerPod, ChipsPerHost, hosts)
	case access == AccessDRA && pods != hosts:
		return fail(RuleWorkloadHosts,
			"a %s slice has %d hosts, and with device_access = %q each pod claims one whole host, so %d pod(s) do not fit: run %d pods",
			t, hosts, AccessDRA, pods, hosts)
	case access != AccessDRA && (chipsPerPod < 1 || ChipsPerHost%chipsPerPod != 0):
		return fail(RuleChipsPerPod,
			"a pod cannot ask for %d %s: a tpu7x host has %d chips, so chips per pod must be 1, 2 or 4 (%s)",
			chipsPerPod, wellknown.ResourceTPU, ChipsPerHost, fix)
	case pods*chipsPerPod != chips:
		return fail(RuleWorkloadChips,
			"a %s slice has %d chips, and %d pod(s) × %d %s per pod = %d: %s",
			t, chips, pods, chipsPerPod, wellknown.ResourceTPU, pods*chipsPerPod, fix)
	}
	return nil
}
