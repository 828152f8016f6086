package gkeapi

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The node label keys and taint keys GKE keeps for itself, refused in a
// node pool's config (nodePools.create and nodePools.update) with a 400
// INVALID_ARGUMENT worded as GKE's answers are (as users have quoted
// them). The provider has its own copy of these rules
// (internal/provider/validator_node_labels.go), written apart; the
// differential test beside this file runs both over one table of keys.
// Each rule follows the document it names:
//
//   - Labels in the Kubernetes namespaces (kubernetes.io and k8s.io, and
//     their sub-domains): GKE refuses the ones a kubelet may not set on its
//     own Node, with "Applying kubernetes label is not allowed:
//     node-role.kubernetes.io/x." (as users quote it in
//     https://github.com/hashicorp/terraform-provider-google/issues/6003).
//     That rule is Kubernetes' "kubelet" reference, --node-labels
//     (https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/),
//     and the NodeRestriction section of "Admission Control in Kubernetes"
//     (https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#noderestriction):
//     a kubelet may set kubernetes.io/hostname, kubernetes.io/arch,
//     kubernetes.io/os, beta.kubernetes.io/instance-type,
//     node.kubernetes.io/instance-type, the failure-domain.beta and
//     topology region and zone labels, and every label under the
//     kubelet.kubernetes.io/ and node.kubernetes.io/ prefixes (and, as
//     the kubelet's code and KEP-279 "Bounding Self-Labeling Kubelets"
//     have it, their sub-domains: [*.]node.kubernetes.io); every other
//     key there, node-role.kubernetes.io/ and node-restriction.kubernetes.io/
//     among them, is refused. So node.kubernetes.io/exclude-from-external-load-balancers,
//     which "Well-Known Labels, Annotations and Taints"
//     (https://kubernetes.io/docs/reference/labels-annotations-taints/)
//     has administrators set, is accepted; so are the labels the kubelet
//     sets itself (kubernetes.io/hostname, ...), a conflict that
//     NodeConfig.labels
//     (https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig)
//     calls undefined behaviour, not an error.
//   - Labels in GKE's domains (cloud.google.com and gke.io, and their
//     sub-domains): GKE sets its labels there on every node ("About node
//     pools", https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools:
//     cloud.google.com/gke-nodepool; besides, the TPU, topology and
//     partition labels, and keys without a gke- or gce- prefix such as
//     cloud.google.com/machine-family and sandbox.gke.io/runtime). GKE
//     refuses the domains' keys, not only the gke- and gce- ones: users
//     quote "Node label \"sandbox.gke.io/runtime\" is reserved for gke
//     sandbox."
//     (https://github.com/terraform-google-modules/terraform-google-kubernetes-engine/issues/252)
//     and "Node labels with key \"cloud.google.com/compute-class\" are
//     managed by GKE or Kubernetes and must not be manually specified."
//     (https://github.com/hashicorp/terraform-provider-google/pull/19677).
//     Accepted are the keys GKE's guides have a pool set, that one among
//     them: cloud.google.com/compute-class ("About custom ComputeClasses",
//     https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes#manual-node-pools)
//     and cloud.google.com/gke-tpu-dra-driver ("Prepare GKE infrastructure
//     for DRA workloads",
//     https://cloud.google.com/kubernetes-engine/docs/how-to/set-up-dra).
//   - Taints in the Kubernetes namespaces: Kubernetes' own (the node
//     lifecycle controller's node.kubernetes.io/not-ready and the like, in
//     "Well-Known Labels, Annotations and Taints"; "Labels and Selectors",
//     https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set,
//     reserves both prefixes for Kubernetes' core components), all refused.
//   - Taints in GKE's domains, refused as the labels are, except the ones
//     GKE's guides have a pool set: cloud.google.com/gke-spot ("Run
//     fault-tolerant workloads at lower costs with Spot VMs",
//     https://cloud.google.com/kubernetes-engine/docs/how-to/spot-vms:
//     --node-taints=cloud.google.com/gke-spot="true":NoSchedule),
//     cloud.google.com/gke-preemptible ("Use preemptible VMs to run
//     fault-tolerant workloads",
//     https://cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms)
//     and cloud.google.com/compute-class ("About custom ComputeClasses").
//   - The taint google.com/tpu, which GKE puts on every TPU node
//     (cloud.TaintTPU); as a label key GKE sets nothing there, so a label
//     google.com/tpu is the pool's own.
//
// A key's domain (its prefix, before the "/") is a DNS name, compared
// without regard to case; the name after it is compared as written.

var (
	// kubernetesDomains and gkeDomains own their keys, and every
	// sub-domain of them.
	kubernetesDomains = []string{"kubernetes.io", "k8s.io"}
	gkeDomains        = []string{"cloud.google.com", "gke.io"}
	// kubeletLabels are the Kubernetes-namespace keys a kubelet may set on
	// its Node, and kubeletLabelDomains the domains (with their
	// sub-domains) whose keys it may set (NodeRestriction; k8s.io/kubelet
	// pkg/apis IsKubeletLabel).
	kubeletLabels = []string{
		"kubernetes.io/hostname", "kubernetes.io/arch", "kubernetes.io/os",
		"beta.kubernetes.io/arch", "beta.kubernetes.io/os", "beta.kubernetes.io/instance-type",
		"node.kubernetes.io/instance-type", "topology.kubernetes.io/region", "topology.kubernetes.io/zone",
		"failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
	}
	kubeletLabelDomains = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}
	// settableLabels and settableTaints are the keys in GKE's domains that
	// GKE's guides have a pool set.
	settableLabels = []string{"cloud.google.com/compute-class", wellknown.LabelTPUDRADriver}
	settableTaints = []string{"cloud.google.com/compute-class", "cloud.google.com/gke-spot", "cloud.google.com/gke-preemptible"}
	// gkeTaints are the taint keys outside GKE's domains that GKE sets.
	gkeTaints = []string{cloud.TaintTPU}
	// labelAnswers are GKE's own words for some keys, where they differ
	// from its usual answer.
	labelAnswers = map[string]string{
		"sandbox.gke.io/runtime": `Node label "sandbox.gke.io/runtime" is reserved for gke sandbox.`,
	}
)

// canonicalKey is key with its domain in lower case, and that domain ("" if
// the key has none).
func canonicalKey(key string) (canonical, domain string) {
	domain, name, found := strings.Cut(key, "/")
	if !found {
		return key, ""
	}
	domain = strings.ToLower(domain)
	return domain + "/" + name, domain
}

// inDomains says whether domain is one of domains or a sub-domain of one.
func inDomains(domain string, domains []string) bool {
	for _, d := range domains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}

// ReservedNodeLabel is GKE's refusal of a node label key in a node pool's
// config, and whether GKE refuses it.
func ReservedNodeLabel(key string) (reason string, reserved bool) {
	canonical, domain := canonicalKey(key)
	switch {
	case inDomains(domain, kubernetesDomains) && !slices.Contains(kubeletLabels, canonical) && !inDomains(domain, kubeletLabelDomains):
		return fmt.Sprintf("Applying kubernetes label is not allowed: %s.", key), true
	case inDomains(domain, gkeDomains) && !slices.Contains(settableLabels, canonical):
		if answer, ok := labelAnswers[canonical]; ok {
			return answer, true
		}
		return fmt.Sprintf("Node labels with key %q are managed by GKE or Kubernetes and must not be manually specified.", key), true
	}
	return "", false
}

// ReservedNodeTaint is GKE's refusal of a node taint key in a node pool's
// config, and whether GKE refuses it.
func ReservedNodeTaint(key string) (reason string, reserved bool) {
	canonical, domain := canonicalKey(key)
	if inDomains(domain, kubernetesDomains) || slices.Contains(gkeTaints, canonical) ||
		(inDomains(domain, gkeDomains) && !slices.Contains(settableTaints, canonical)) {
		return fmt.Sprintf("Node taints with key %q are managed by GKE or Kubernetes and must not be manually specified.", key), true
	}
	return "", false
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
		if msg, reserved := ReservedNodeLabel(k); reserved {
			return msg
		}
	}
	for _, t := range taints {
		if msg, reserved := ReservedNodeTaint(t.Key); reserved {
			return msg
		}
	}
	return ""
}
