package gkeapi

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The node labels and taints GKE keeps for itself. GKE refuses a node pool
// whose config sets them, with a 400 INVALID_ARGUMENT worded as below
// (the words of GKE's answers, as users have quoted them):
//
//   - a key in the Kubernetes namespaces (kubernetes.io and k8s.io, and
//     their sub-domains) other than those a kubelet may set on its own Node
//     (the NodeRestriction rule: kubelet.kubernetes.io/ and
//     node.kubernetes.io/ keys, and the well-known topology, hostname, OS
//     and architecture labels): "Applying kubernetes label is not allowed:
//     node-role.kubernetes.io/x.";
//   - a key GKE sets on the nodes itself (cloud.google.com/gke-* and
//     cloud.google.com/gce-*: the pool's name, the TPU accelerator and
//     topology, the partitions, the physical placement): "Node labels with
//     key \"cloud.google.com/gke-nodepool\" are managed by GKE or
//     Kubernetes and must not be manually specified." The keys GKE's
//     guides tell users to set to opt into a feature are allowed: the TPU
//     DRA driver's cloud.google.com/gke-tpu-dra-driver.
//
// Taints follow the same rule, for the keys GKE and Kubernetes put on
// nodes themselves (GKE taints TPU nodes google.com/tpu, Kubernetes taints
// node.kubernetes.io/not-ready and the like).

// userSettableLabels are the keys under GKE's prefixes that users set.
var userSettableLabels = map[string]bool{wellknown.LabelTPUDRADriver: true}

// kubeletLabels are the Kubernetes-namespace keys a kubelet may set on its
// Node (k8s.io/kubernetes plugin/pkg/admission/noderestriction).
var kubeletLabels = map[string]bool{
	"kubernetes.io/hostname": true, "kubernetes.io/arch": true, "kubernetes.io/os": true,
	"beta.kubernetes.io/arch": true, "beta.kubernetes.io/os": true, "beta.kubernetes.io/instance-type": true,
	"node.kubernetes.io/instance-type": true, "topology.kubernetes.io/region": true, "topology.kubernetes.io/zone": true,
	"failure-domain.beta.kubernetes.io/region": true, "failure-domain.beta.kubernetes.io/zone": true,
}

// kubernetesNamespace says whether a label key's prefix is kubernetes.io or
// k8s.io, or a sub-domain of either.
func kubernetesNamespace(key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	for _, d := range []string{"kubernetes.io", "k8s.io"} {
		if prefix == d || strings.HasSuffix(prefix, "."+d) {
			return true
		}
	}
	return false
}

// gkeManaged says whether GKE sets the key on nodes itself.
func gkeManaged(key string) bool {
	if userSettableLabels[key] {
		return false
	}
	return strings.HasPrefix(key, "cloud.google.com/gke-") || strings.HasPrefix(key, "cloud.google.com/gce-") ||
		key == cloud.TaintTPU
}

// reservedLabel is GKE's refusal of a node label key, or "".
func reservedLabel(key string) string {
	switch {
	case kubernetesNamespace(key) && !kubeletLabels[key] &&
		!strings.HasPrefix(key, "kubelet.kubernetes.io/") && !strings.HasPrefix(key, "node.kubernetes.io/"):
		return fmt.Sprintf("Applying kubernetes label is not allowed: %s.", key)
	case gkeManaged(key):
		return fmt.Sprintf("Node labels with key %q are managed by GKE or Kubernetes and must not be manually specified.", key)
	}
	return ""
}

// reservedTaint is GKE's refusal of a node taint key, or "".
func reservedTaint(key string) string {
	if kubernetesNamespace(key) || gkeManaged(key) {
		return fmt.Sprintf("Node taints with key %q are managed by GKE or Kubernetes and must not be manually specified.", key)
	}
	return ""
}

// nodeTaint is NodeTaint as a request carries it.
type nodeTaint struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Effect string `json:"effect"`
}

// reservedKeys is GKE's refusal of the first reserved label key (in key
// order), else of the first reserved taint key, or "".
func reservedKeys(labels map[string]string, taints []nodeTaint) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if msg := reservedLabel(k); msg != "" {
			return msg
		}
	}
	for _, t := range taints {
		if msg := reservedTaint(t.Key); msg != "" {
			return msg
		}
	}
	return ""
}
