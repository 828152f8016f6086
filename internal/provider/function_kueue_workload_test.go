package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

func TestKueueWorkloadFunction(t *testing.T) {
	wiring := func(topo string, hosts int64, accel string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"pod_annotations":  knownvalue.MapExact(map[string]knownvalue.Check{"cloud.google.com/gke-tpu-slice-topology": knownvalue.StringExact(topo)}),
			"node_selector":    knownvalue.MapExact(map[string]knownvalue.Check{"cloud.google.com/gke-tpu-accelerator": knownvalue.StringExact("tpu7x")}),
			"hosts":            knownvalue.Int64Exact(hosts),
			"accelerator_type": knownvalue.StringExact(accel),
		})
	}
	testFunctionOutputs(t, map[string]knownvalue.Check{
		`provider::gke::kueue_workload("4x4x8")`: wiring("4x4x8", 32, "tpu7x-256"),
		`provider::gke::kueue_workload("2x2x2")`: wiring("2x2x2", 2, "tpu7x-16"),
	})
}

func TestKueueWorkloadFunction_Rejected(t *testing.T) {
	testFunctionError(t, `provider::gke::kueue_workload("4x2x2")`, rejectedTopologies["4x2x2"])
}
