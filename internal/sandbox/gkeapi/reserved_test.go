package gkeapi

import (
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The label and taint keys GKE keeps for itself are refused with GKE's
// words; the others, and the keys GKE's guides have users set, are not.
func TestReservedNodeLabelKeys(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"node-role.kubernetes.io/worker":   "Applying kubernetes label is not allowed: node-role.kubernetes.io/worker.",
		"kubernetes.io/role":               "Applying kubernetes label is not allowed: kubernetes.io/role.",
		"example.k8s.io/x":                 "Applying kubernetes label is not allowed: example.k8s.io/x.",
		wellknown.LabelNodePool:            `Node labels with key "cloud.google.com/gke-nodepool" are managed by GKE or Kubernetes and must not be manually specified.`,
		wellknown.LabelTopologySubBlock:    `Node labels with key "cloud.google.com/gce-topology-subblock" are managed by GKE or Kubernetes and must not be manually specified.`,
		wellknown.LabelTPUDRADriver:        "",
		"node.kubernetes.io/exclude":       "",
		"topology.kubernetes.io/zone":      "",
		"kubelet.kubernetes.io/x":          "",
		"team":                             "",
		"example.com/kubernetes.io":        "",
		"cloud.google.com/custom-owned-by": "",
	} {
		if got := reservedLabel(key); got != want {
			t.Errorf("label %s: %q, want %q", key, got, want)
		}
	}
	for key, reserved := range map[string]bool{
		cloud.TaintTPU: true, "node.kubernetes.io/not-ready": true, "cloud.google.com/gke-quick-remove": true,
		"dedicated": false, "example.com/gpu": false,
	} {
		if got := reservedTaint(key) != ""; got != reserved {
			t.Errorf("taint %s: reserved %v, want %v", key, got, reserved)
		}
	}
}
