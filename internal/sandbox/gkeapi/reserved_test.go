package gkeapi

import (
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The label keys GKE keeps for itself are refused with GKE's words; the
// others, those the kubelet may set and those GKE's guides have a pool set,
// are not (the documents are named in reserved.go).
func TestReservedNodeLabelKeys(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		// The kubelet refuses them (NodeRestriction, kubelet --node-labels).
		"node-role.kubernetes.io/worker":   "Applying kubernetes label is not allowed: node-role.kubernetes.io/worker.",
		"node-restriction.kubernetes.io/x": "Applying kubernetes label is not allowed: node-restriction.kubernetes.io/x.",
		"kubernetes.io/role":               "Applying kubernetes label is not allowed: kubernetes.io/role.",
		"k8s.io/x":                         "Applying kubernetes label is not allowed: k8s.io/x.",
		"example.k8s.io/x":                 "Applying kubernetes label is not allowed: example.k8s.io/x.",
		"app.kubernetes.io/component":      "Applying kubernetes label is not allowed: app.kubernetes.io/component.",
		"Node-Role.Kubernetes.io/worker":   "Applying kubernetes label is not allowed: Node-Role.Kubernetes.io/worker.",
		// The kubelet may set them.
		"node.kubernetes.io/instance-type":                        "",
		"node.kubernetes.io/foo":                                  "",
		"node.kubernetes.io/exclude-from-external-load-balancers": "",
		"pool.node.kubernetes.io/x":                               "",
		"kubelet.kubernetes.io/x":                                 "",
		"kubernetes.io/hostname":                                  "",
		"kubernetes.io/os":                                        "",
		"beta.kubernetes.io/instance-type":                        "",
		"topology.kubernetes.io/zone":                             "",
		"failure-domain.beta.kubernetes.io/zone":                  "",
		"node.kubernetes.io.example.com/x":                        "",
		"notkubernetes.io/x":                                      "",
		"kubernetes.io.example/x":                                 "",
		// GKE sets them.
		wellknown.LabelNodePool:                `Node labels with key "cloud.google.com/gke-nodepool" are managed by GKE or Kubernetes and must not be manually specified.`,
		wellknown.LabelTopologySubBlock:        `Node labels with key "cloud.google.com/gce-topology-subblock" are managed by GKE or Kubernetes and must not be manually specified.`,
		"cloud.google.com/gke-spot":            `Node labels with key "cloud.google.com/gke-spot" are managed by GKE or Kubernetes and must not be manually specified.`,
		"cloud.google.com/gke-placement-group": `Node labels with key "cloud.google.com/gke-placement-group" are managed by GKE or Kubernetes and must not be manually specified.`,
		"cloud.google.com/custom-owned-by":     `Node labels with key "cloud.google.com/custom-owned-by" are managed by GKE or Kubernetes and must not be manually specified.`,
		"Cloud.Google.com/gke-tpu-accelerator": `Node labels with key "Cloud.Google.com/gke-tpu-accelerator" are managed by GKE or Kubernetes and must not be manually specified.`,
		"node.gke.io/created-by-mig":           `Node labels with key "node.gke.io/created-by-mig" are managed by GKE or Kubernetes and must not be manually specified.`,
		"sandbox.gke.io/runtime":               `Node label "sandbox.gke.io/runtime" is reserved for gke sandbox.`,
		"mycloud.google.com.example/x":         "",
		// GKE's guides have a pool set them.
		wellknown.LabelTPUDRADriver:      "",
		"cloud.google.com/compute-class": "",
		// A pool's own.
		"team":                      "",
		"example.com/team":          "",
		"example.com/kubernetes.io": "",
		cloud.TaintTPU:              "",
	} {
		got, reserved := ReservedNodeLabel(key)
		if got != want || reserved != (want != "") {
			t.Errorf("label %s: %q (reserved %v), want %q", key, got, reserved, want)
		}
	}
}

// The taint keys GKE and Kubernetes put on nodes themselves are refused;
// those GKE's guides have a pool set (Spot and preemptible VMs, compute
// classes), and a pool's own, are not.
func TestReservedNodeTaintKeys(t *testing.T) {
	t.Parallel()
	for key, reserved := range map[string]bool{
		cloud.TaintTPU:                          true,
		"Google.com/tpu":                        true,
		"node.kubernetes.io/not-ready":          true,
		"node.kubernetes.io/foo":                true,
		"node-role.kubernetes.io/control-plane": true,
		"kubernetes.io/hostname":                true,
		"k8s.io/x":                              true,
		"cloud.google.com/gke-quick-remove":     true,
		"cloud.google.com/gke-nodepool":         true,
		"cloud.google.com/custom":               true,
		"sandbox.gke.io/runtime":                true,
		"cloud.google.com/gke-spot":             false,
		"cloud.google.com/gke-preemptible":      false,
		"cloud.google.com/compute-class":        false,
		"dedicated":                             false,
		"example.com/gpu":                       false,
		"nvidia.com/gpu":                        false,
	} {
		msg, got := ReservedNodeTaint(key)
		if got != reserved || (msg != "") != reserved {
			t.Errorf("taint %s: reserved %v (%q), want %v", key, got, msg, reserved)
		}
		if want := `Node taints with key "` + key + `" are managed by GKE or Kubernetes and must not be manually specified.`; reserved && msg != want {
			t.Errorf("taint %s: %q, want %q", key, msg, want)
		}
	}
}

// reservedKeys answers for the first reserved label in key order, then for
// the first reserved taint, as a request's create or update is refused.
func TestReservedKeysFirstRefusal(t *testing.T) {
	t.Parallel()
	labels := map[string]string{"team": "a", "node-role.kubernetes.io/b": "", "cloud.google.com/gke-nodepool": "c"}
	if got := reservedKeys(labels, []nodeTaint{{Key: cloud.TaintTPU}}); got != `Node labels with key "cloud.google.com/gke-nodepool" are managed by GKE or Kubernetes and must not be manually specified.` {
		t.Errorf("labels and taints: %q", got)
	}
	taints := []nodeTaint{{Key: "cloud.google.com/gke-spot"}, {Key: "dedicated"}, {Key: cloud.TaintTPU}, {Key: "k8s.io/x"}}
	if got := reservedKeys(map[string]string{"team": "a"}, taints); got != `Node taints with key "google.com/tpu" are managed by GKE or Kubernetes and must not be manually specified.` {
		t.Errorf("taints: %q", got)
	}
	if got := reservedKeys(map[string]string{"node.kubernetes.io/pool": "a"}, taints[:2]); got != "" {
		t.Errorf("allowed keys: %q", got)
	}
}
