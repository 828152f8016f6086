package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

func TestSliceWorkloadFunction(t *testing.T) {
	fit := func(pods, perHost, hosts int64, resources map[string]knownvalue.Check, accel string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"pods":             knownvalue.Int64Exact(pods),
			"pods_per_host":    knownvalue.Int64Exact(perHost),
			"hosts":            knownvalue.Int64Exact(hosts),
			"tpu_resources":    knownvalue.MapExact(resources),
			"accelerator_type": knownvalue.StringExact(accel),
		})
	}
	tpu := func(n string) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{"google.com/tpu": knownvalue.StringExact(n)}
	}
	testFunctionOutputs(t, map[string]knownvalue.Check{
		`provider::gke::slice_workload("4x4x8", "device_plugin", 32, 4)`: fit(32, 1, 32, tpu("4"), "tpu7x-256"),
		`provider::gke::slice_workload("4x4x4", "device_plugin", 64, 1)`: fit(64, 4, 16, tpu("1"), "tpu7x-128"),
		`provider::gke::slice_workload("2x2x2", "dra", 2, 4)`:            fit(2, 1, 2, map[string]knownvalue.Check{}, "tpu7x-16"),
	})
}

func TestSliceWorkloadFunction_Rejected(t *testing.T) {
	for expr, text := range map[string]string{
		`provider::gke::slice_workload("4x8x4", "device_plugin", 64, 4)`: rejectedTopologies["4x8x4"],
		`provider::gke::slice_workload("4x4x4", "plugin", 16, 4)`:        `device_access "plugin": write "device_plugin" (google.com/tpu requests) or "dra" (GKE's TPU DRA driver)`,
		// pods × chips per pod ≠ the slice's chips, both numbers named.
		`provider::gke::slice_workload("4x4x8", "device_plugin", 32, 2)`: "a 4x4x8 slice has 128 chips, and 32 pod(s) × 2 google.com/tpu per pod = 64: run 32 pods",
		// DRA: pods ≠ the slice's hosts.
		`provider::gke::slice_workload("4x4x8", "dra", 16, 4)`: `a 4x4x8 slice has 32 hosts, and with device_access = "dra" each pod claims one whole host, so 16 pod(s) do not fit: run 32 pods`,
		`provider::gke::slice_workload("2x2x2", "dra", 4, 2)`:  `with device_access = "dra" a pod's claim takes all 4 chips of its host, not 2`,
	} {
		t.Run(expr, func(t *testing.T) { testFunctionError(t, expr, text) })
	}
}
