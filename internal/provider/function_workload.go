package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The workload parameters of the wiring functions (kueue_workload,
// slice_workload): how many pods run on the slice and how many chips each
// asks for. The functions check them with topology.CheckWorkload, the rule
// GKE's slice admission check applies at admission, so that a workload that
// cannot fit fails at plan.

func podsParameter() function.Int64Parameter {
	return function.Int64Parameter{
		Name:                "pods",
		MarkdownDescription: "How many pods the workload runs on one slice (a Job's `parallelism`; per replicated Job of a JobSet).",
	}
}

func chipsPerPodParameter() function.Int64Parameter {
	return function.Int64Parameter{
		Name: "chips_per_pod",
		MarkdownDescription: "The `google.com/tpu` each pod asks for (1, 2 or 4: a tpu7x host has 4 chips). With `device_access = \"dra\"`, 4: " +
			"a pod's claim takes every chip of its host.",
	}
}

// workloadArgs are the arguments of a wiring function: the topology at
// index 0, device access (when the function has it), pods and chips per pod.
type workloadArgs struct {
	topology    topology.Topology
	access      string
	pods        int64
	chipsPerPod int64
}

// readWorkload reads the arguments (topology, [device_access,] pods,
// chips_per_pod) and checks the topology, the access and the fit. On a
// broken rule it sets the function error on the argument at fault, with
// the rule's message, and returns false.
func readWorkload(ctx context.Context, req function.RunRequest, resp *function.RunResponse, withAccess bool) (workloadArgs, bool) {
	var raw string
	var w workloadArgs
	targets := []any{&raw, &w.pods, &w.chipsPerPod}
	if withAccess {
		targets = []any{&raw, &w.access, &w.pods, &w.chipsPerPod}
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, targets...))
	if resp.Error != nil {
		return w, false
	}
	t, err := topology.ParseTPU7x(raw)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, err.Error())
		return w, false
	}
	w.topology = t
	if withAccess && w.access != topology.AccessDevicePlugin && w.access != topology.AccessDRA {
		resp.Error = function.NewArgumentFuncError(1, fmt.Sprintf("device_access %q: write %q (google.com/tpu requests) or %q (GKE's TPU DRA driver)",
			w.access, topology.AccessDevicePlugin, topology.AccessDRA))
		return w, false
	}
	if err := t.CheckWorkload(w.access, w.pods, w.chipsPerPod); err != nil {
		// The pods argument, or chips_per_pod when that is what is wrong.
		arg := int64(len(targets) - 2)
		if we := (*topology.WorkloadError)(nil); errors.As(err, &we) && we.Rule == topology.RuleChipsPerPod {
			arg++
		}
		resp.Error = function.NewArgumentFuncError(arg, err.Error())
		return w, false
	}
	return w, true
}

// tpuResources is a container's requests and limits of google.com/tpu for
// the workload: chips per pod with the device plugin, none with DRA (the
// claim gives the chips).
func (w workloadArgs) tpuResources() types.Map {
	if w.access == topology.AccessDRA {
		return stringMap(map[string]string{})
	}
	return stringMap(map[string]string{wellknown.ResourceTPU: fmt.Sprint(w.chipsPerPod)})
}

// podsPerHost is how many of the workload's pods share one host.
func (w workloadArgs) podsPerHost() int64 { return topology.ChipsPerHost / w.chipsPerPod }
