package slicecheck

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestSliceNameFor(t *testing.T) {
	t.Parallel()
	if got := SliceName("team-a", "jobset-train-3f2a1", "slice-job", 1); got != "team-a-jobset-train-3f2a1-slice-job-1" {
		t.Errorf("short name = %q", got)
	}
	long := SliceName("research-team-b", "jobset-very-long-training-run-name-7c9d1", "slice-job", 0)
	other := SliceName("research-team-b", "jobset-very-long-training-run-name-7c9d1", "slice-job", 1)
	if len(long) != maxSliceName || len(other) != maxSliceName || long == other {
		t.Errorf("long names %q (%d) and %q (%d): want %d characters each, and different", long, len(long), other, len(other), maxSliceName)
	}
	if !strings.HasPrefix(long, "research-team-b-jobset-very-long-training-r-") || long != SliceName("research-team-b", "jobset-very-long-training-run-name-7c9d1", "slice-job", 0) {
		t.Errorf("long name %q: want the name's start and a stable hash", long)
	}
}

func parseAssignment(t *testing.T, s string) wlTopologyAssignment {
	t.Helper()
	var a wlTopologyAssignment
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAssignedPartitions(t *testing.T) {
	t.Parallel()
	labels := map[string]map[string]string{}
	for i, n := range []string{"n-a-0", "n-a-1", "n-b-0", "n-b-1", "n-c-0"} {
		labels[n] = map[string]string{wellknown.LabelPartitionID: []string{"pa", "pa", "pb", "pb", "pc"}[i]}
	}
	nodeLabels := func(n string) map[string]string { return labels[n] }

	// The hostname level only, node names given by prefix and roots, in
	// two slices of the assignment.
	a := parseAssignment(t, `{"levels":["kubernetes.io/hostname"],"slices":[
		{"domainCount":2,"valuesPerLevel":[{"individual":{"prefix":"n-b-","roots":["0","1"]}}],"podCounts":{"universal":1}},
		{"domainCount":3,"valuesPerLevel":[{"individual":{"prefix":"n-","roots":["a-0","a-1","c-0"]}}],"podCounts":{"individual":[1,1,1]}}]}`)
	got, err := assignedPartitions(a, wellknown.LabelPartitionID, nodeLabels)
	if err != nil || !slices.Equal(got, []string{"pb", "pa", "pc"}) {
		t.Errorf("by hostname = %v, %v; want [pb pa pc] (assignment order, each once)", got, err)
	}

	// The partition level named directly, one value for all domains.
	a = parseAssignment(t, `{"levels":["cloud.google.com/gce-topology-block","cloud.google.com/gke-tpu-partition-4x4x4-id"],"slices":[
		{"domainCount":1,"valuesPerLevel":[{"universal":"block-a"},{"universal":"pz"}],"podCounts":{"universal":16}}]}`)
	if got, err := assignedPartitions(a, wellknown.LabelPartitionID, nodeLabels); err != nil || !slices.Equal(got, []string{"pz"}) {
		t.Errorf("by partition level = %v, %v; want [pz]", got, err)
	}

	for name, s := range map[string]string{
		"unknown node":  `{"levels":["kubernetes.io/hostname"],"slices":[{"domainCount":1,"valuesPerLevel":[{"universal":"gone"}],"podCounts":{"universal":1}}]}`,
		"no such level": `{"levels":["cloud.google.com/gce-topology-block"],"slices":[{"domainCount":1,"valuesPerLevel":[{"universal":"b"}],"podCounts":{"universal":1}}]}`,
		"short roots":   `{"levels":["kubernetes.io/hostname"],"slices":[{"domainCount":2,"valuesPerLevel":[{"individual":{"roots":["n-a-0"]}}],"podCounts":{"universal":1}}]}`,
		"levels count":  `{"levels":["kubernetes.io/hostname"],"slices":[{"domainCount":1,"valuesPerLevel":[],"podCounts":{"universal":1}}]}`,
	} {
		if got, err := assignedPartitions(parseAssignment(t, s), wellknown.LabelPartitionID, nodeLabels); err == nil {
			t.Errorf("%s: %v; want an error", name, got)
		}
	}
}
