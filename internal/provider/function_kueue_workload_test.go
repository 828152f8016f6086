package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

func TestKueueWorkloadFunction(t *testing.T) {
	wiring := func(topo string, hosts, pods int64, perPod, accel string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"pod_annotations":  knownvalue.MapExact(map[string]knownvalue.Check{"cloud.google.com/gke-tpu-slice-topology": knownvalue.StringExact(topo)}),
			"node_selector":    knownvalue.MapExact(map[string]knownvalue.Check{"cloud.google.com/gke-tpu-accelerator": knownvalue.StringExact("tpu7x")}),
			"hosts":            knownvalue.Int64Exact(hosts),
			"pods":             knownvalue.Int64Exact(pods),
			"tpu_resources":    knownvalue.MapExact(map[string]knownvalue.Check{"google.com/tpu": knownvalue.StringExact(perPod)}),
			"accelerator_type": knownvalue.StringExact(accel),
			"flex_start": knownvalue.ObjectExact(map[string]knownvalue.Check{
				"pod_annotations": knownvalue.MapExact(map[string]knownvalue.Check{}),
				"node_selector": knownvalue.MapExact(map[string]knownvalue.Check{"cloud.google.com/gke-tpu-accelerator": knownvalue.StringExact("tpu7x"),
					"cloud.google.com/gke-tpu-topology": knownvalue.StringExact(topo)}),
			}),
		})
	}
	testFunctionOutputs(t, map[string]knownvalue.Check{
		`provider::gke::kueue_workload("4x4x8", 32, 4)`: wiring("4x4x8", 32, 32, "4", "tpu7x-256"),
		`provider::gke::kueue_workload("2x2x2", 2, 4)`:  wiring("2x2x2", 2, 2, "4", "tpu7x-16"),
		`provider::gke::kueue_workload("2x2x1", 2, 2)`:  wiring("2x2x1", 1, 2, "2", "tpu7x-8"),
	})
}

func TestKueueWorkloadFunction_Rejected(t *testing.T) {
	testFunctionError(t, `provider::gke::kueue_workload("4x2x2", 4, 4)`, rejectedTopologies["4x2x2"])
}

// A workload that does not fill its slice fails at plan with both numbers,
// as GKE's slice admission check would refuse it at admission.
func TestKueueWorkloadFunction_WorkloadDoesNotFit(t *testing.T) {
	testFunctionError(t, `provider::gke::kueue_workload("4x4x8", 16, 4)`,
		"a 4x4x8 slice has 128 chips, and 16 pod(s) × 4 google.com/tpu per pod = 64: run 32 pods (one per host) with 4 google.com/tpu each")
	testFunctionError(t, `provider::gke::kueue_workload("4x4x4", 8, 8)`,
		"a pod cannot ask for 8 google.com/tpu: a tpu7x host has 4 chips, so chips per pod must be 1, 2 or 4")
}
