package provider

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// The node label keys and taint keys a node pool may not set: exactly the
// ones GKE refuses at apply (a 400 from nodePools.create or update), so that
// plan refuses them first and nothing else. The sandbox has its own copy of
// these rules (internal/sandbox/gkeapi/reserved.go), written apart; a
// differential test there runs both over one table of keys. Each rule
// follows the document it names:
//
//   - Labels in the Kubernetes domains (kubernetes.io and k8s.io, and their
//     sub-domains): GKE refuses the ones a kubelet may not set on its own
//     Node ("Applying kubernetes label is not allowed:
//     node-role.kubernetes.io/x.", as users quote GKE's answer in
//     https://github.com/hashicorp/terraform-provider-google/issues/6003).
//     That rule is Kubernetes' "kubelet" reference, --node-labels
//     (https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/),
//     and the NodeRestriction section of "Admission Control in Kubernetes"
//     (https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#noderestriction):
//     a kubelet may set the eleven keys of kubeletLabels and every key
//     under kubelet.kubernetes.io/ and node.kubernetes.io/ (and their
//     sub-domains, as KEP-279 "Bounding Self-Labeling Kubelets" has it);
//     every other key there (node-role.kubernetes.io/,
//     node-restriction.kubernetes.io/, k8s.io/, ...) is refused. So
//     node.kubernetes.io/exclude-from-external-load-balancers, which
//     "Well-Known Labels, Annotations and Taints"
//     (https://kubernetes.io/docs/reference/labels-annotations-taints/)
//     has administrators set, is a pool's to set. The kubeletLabels the
//     kubelet sets itself (kubernetes.io/hostname, node.kubernetes.io/instance-type,
//     topology.kubernetes.io/zone, ...) are accepted as GKE accepts them,
//     with a warning: NodeConfig.labels
//     (https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig)
//     says that on a conflict with a default label "the behavior is
//     undefined and conflicts should be avoided".
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
//     A pool that set cloud.google.com/gke-nodepool would get nodes that
//     carry the wrong pool label, and a create that waits for them for ever.
//   - Taints in the Kubernetes domains: Kubernetes' own (the node lifecycle
//     controller's node.kubernetes.io/not-ready and the like, in
//     "Well-Known Labels, Annotations and Taints"; "Labels and Selectors",
//     https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set,
//     reserves both prefixes for Kubernetes' core components), all refused.
//   - Taints in GKE's domains: refused as the labels are, except the ones
//     GKE's guides have a pool set: cloud.google.com/gke-spot ("Run
//     fault-tolerant workloads at lower costs with Spot VMs",
//     https://cloud.google.com/kubernetes-engine/docs/how-to/spot-vms:
//     --node-taints=cloud.google.com/gke-spot="true":NoSchedule),
//     cloud.google.com/gke-preemptible ("Use preemptible VMs to run
//     fault-tolerant workloads",
//     https://cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms)
//     and cloud.google.com/compute-class ("About custom ComputeClasses").
//   - The taint google.com/tpu: GKE taints every TPU node with it. As a
//     label key GKE sets nothing there, so it is a pool's own.
//
// A key's domain (before its "/") is a DNS name, compared without regard to
// case; the name after it is compared as written.
var (
	// kubernetesDomains and gkeDomains own their label keys and taint keys
	// (the domains and every sub-domain of them).
	kubernetesDomains = []string{"kubernetes.io", "k8s.io"}
	gkeDomains        = []string{"cloud.google.com", "gke.io"}
	// kubeletLabels are the keys of the Kubernetes domains that a kubelet
	// may set on its own Node (and sets itself), and kubeletLabelDomains
	// the domains (with their sub-domains) whose every key it may set.
	kubeletLabels = []string{
		"kubernetes.io/hostname", "kubernetes.io/arch", "kubernetes.io/os",
		"beta.kubernetes.io/arch", "beta.kubernetes.io/os", "beta.kubernetes.io/instance-type",
		"node.kubernetes.io/instance-type", "topology.kubernetes.io/region", "topology.kubernetes.io/zone",
		"failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
	}
	kubeletLabelDomains = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}
	// gkeSettableLabels are the keys in GKE's domains that GKE documents
	// for a node pool to set.
	gkeSettableLabels = []string{
		"cloud.google.com/compute-class",      // a manually created pool for a ComputeClass
		"cloud.google.com/gke-tpu-dra-driver", // GKE's TPU DRA driver instead of the device plugin
	}
	// gkeSettableTaints are the taint keys in GKE's domains that GKE
	// documents for a node pool to set.
	gkeSettableTaints = []string{
		"cloud.google.com/compute-class",
		"cloud.google.com/gke-spot",
		"cloud.google.com/gke-preemptible",
	}
	// gkeTaints are taint keys outside those domains that GKE sets itself.
	gkeTaints = []string{"google.com/tpu"}
)

// nodeLabelsRule and taintKeyRule say, in Markdown, which keys are refused:
// the schema's descriptions of node_labels and taint.key.
const (
	nodeLabelsRule = "Keys are refused at validate where GKE refuses them: in the `cloud.google.com` and `gke.io` domains (GKE sets those), " +
		"except `cloud.google.com/gke-tpu-dra-driver` and `cloud.google.com/compute-class`; in the `kubernetes.io` and `k8s.io` domains, " +
		"all but the ones the kubelet may set: keys under `node.kubernetes.io/` and `kubelet.kubernetes.io/`, and the labels the kubelet " +
		"sets itself (`kubernetes.io/hostname`, `node.kubernetes.io/instance-type`, `topology.kubernetes.io/zone`, ...), which draw a warning, " +
		"as the pool's value conflicts with the kubelet's."
	taintKeyRule = "`google.com/tpu` (GKE taints every TPU node with it) and keys in the `kubernetes.io`, `k8s.io`, " +
		"`cloud.google.com` and `gke.io` domains are refused at validate, as GKE refuses them, except `cloud.google.com/compute-class`, " +
		"`cloud.google.com/gke-spot` and `cloud.google.com/gke-preemptible`."
)

// ReservedKeyError is a node label key or taint key that Kubernetes or GKE
// reserves.
type ReservedKeyError struct {
	// What is "node label" or "taint".
	What string
	Key  string
	// Rule says who reserves the key, and what may be set there.
	Rule string
	// Instead is what to write instead.
	Instead string
}

func (e *ReservedKeyError) Error() string {
	return fmt.Sprintf("%s %q: %s. %s", e.What, e.Key, e.Rule, e.Instead)
}

// canonicalKey is key with its domain (its prefix, before the "/") in lower
// case, and that domain, or "" if it has none.
func canonicalKey(key string) (canonical, domain string) {
	domain, name, found := strings.Cut(key, "/")
	if !found {
		return key, ""
	}
	domain = strings.ToLower(domain)
	return domain + "/" + name, domain
}

// inDomains is the one of domains that domain is, or is a sub-domain of.
func inDomains(domain string, domains []string) (string, bool) {
	for _, d := range domains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return d, true
		}
	}
	return "", false
}

// insteadOf suggests a key of the user's own for a reserved key.
func insteadOf(key string) string {
	_, name, _ := strings.Cut(key, "/")
	return fmt.Sprintf("Use a key of your own, without that prefix: %q, or one in a domain you own such as %q", name, "example.com/"+name)
}

// ReservedNodeLabel is the provider's refusal of a node label key (the
// rules above, which are GKE's), and whether it refuses it.
func ReservedNodeLabel(key string) (reason string, reserved bool) {
	if err := reservedNodeLabel(key); err != nil {
		return err.Error(), true
	}
	return "", false
}

// ReservedNodeTaint is the provider's refusal of a taint key (the rules
// above, which are GKE's), and whether it refuses it.
func ReservedNodeTaint(key string) (reason string, reserved bool) {
	if err := reservedTaint(key); err != nil {
		return err.Error(), true
	}
	return "", false
}

// reservedNodeLabel is the ReservedKeyError of a node label key, or nil.
func reservedNodeLabel(key string) *ReservedKeyError {
	canonical, domain := canonicalKey(key)
	if d, ok := inDomains(domain, kubernetesDomains); ok && !kubeletMaySet(canonical, domain) {
		return &ReservedKeyError{What: "node label", Key: key, Instead: insteadOf(key),
			Rule: fmt.Sprintf("Kubernetes reserves the keys of the %s domain (and its sub-domains) for its own components, "+
				"and the kubelet, through which GKE labels the nodes, refuses this one (GKE answers \"Applying kubernetes label is not allowed\"); "+
				"a pool may set there only the keys under node.kubernetes.io/ and kubelet.kubernetes.io/, and the ones the kubelet sets itself", d)}
	}
	return reservedGKEKey("node label", key, canonical, domain, gkeSettableLabels)
}

// kubeletMaySet says whether the kubelet may set a label key of the
// Kubernetes domains (canonical, in domain) on its own Node.
func kubeletMaySet(canonical, domain string) bool {
	_, ok := inDomains(domain, kubeletLabelDomains)
	return ok || slices.Contains(kubeletLabels, canonical)
}

// kubeletSetsLabel says whether the kubelet sets a label key on every node
// itself, so that a pool's value for it conflicts with the kubelet's.
func kubeletSetsLabel(key string) bool {
	canonical, _ := canonicalKey(key)
	return slices.Contains(kubeletLabels, canonical)
}

// reservedTaint is the ReservedKeyError of a taint key, or nil.
func reservedTaint(key string) *ReservedKeyError {
	canonical, domain := canonicalKey(key)
	if d, ok := inDomains(domain, kubernetesDomains); ok {
		return &ReservedKeyError{What: "taint", Key: key, Instead: insteadOf(key),
			Rule: fmt.Sprintf("Kubernetes reserves the keys of the %s domain (and its sub-domains) for its own components: "+
				"its node controller and the kubelet set these taints", d)}
	}
	if slices.Contains(gkeTaints, canonical) {
		return &ReservedKeyError{What: "taint", Key: key, Instead: "Leave it out: GKE sets it. " + insteadOf(key),
			Rule: "GKE sets this taint on every TPU node itself"}
	}
	return reservedGKEKey("taint", key, canonical, domain, gkeSettableTaints)
}

// reservedGKEKey is the ReservedKeyError of a key in GKE's domains that is
// not one of settable, or nil.
func reservedGKEKey(what, key, canonical, domain string, settable []string) *ReservedKeyError {
	d, ok := inDomains(domain, gkeDomains)
	if !ok || slices.Contains(settable, canonical) {
		return nil
	}
	allowed := slices.Clone(settable)
	sort.Strings(allowed)
	return &ReservedKeyError{What: what, Key: key, Instead: insteadOf(key),
		Rule: fmt.Sprintf("GKE sets the %ss of the %s domain (and its sub-domains) on its nodes itself "+
			"(cloud.google.com/gke-nodepool, for one, names the node pool), so one set here conflicts with GKE's, and GKE refuses it; "+
			"a pool may set only %s there", what, d, strings.Join(allowed, ", "))}
}

var _ validator.Map = nodeLabelsValidator{}

// nodeLabelsValidator refuses, at validate, node label keys that GKE
// refuses (reservedNodeLabel), and warns of the ones whose value the
// kubelet sets itself (kubeletSetsLabel).
type nodeLabelsValidator struct{}

func (v nodeLabelsValidator) Description(ctx context.Context) string {
	return strings.ReplaceAll(v.MarkdownDescription(ctx), "`", "")
}

func (nodeLabelsValidator) MarkdownDescription(context.Context) string { return nodeLabelsRule }

func (nodeLabelsValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	keys := make([]string, 0, len(req.ConfigValue.Elements()))
	for k := range req.ConfigValue.Elements() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := reservedNodeLabel(k); err != nil {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), "Reserved Node Label", err.Error())
		} else if kubeletSetsLabel(k) {
			resp.Diagnostics.AddAttributeWarning(req.Path.AtMapKey(k), "Node Label Set by the Kubelet",
				fmt.Sprintf("node label %q: GKE accepts it, but the kubelet sets it on every node itself, and GKE's NodeConfig.labels says "+
					"that on such a conflict \"the behavior is undefined and conflicts should be avoided\". Leave it out, or use a key of your own such as %q.",
					k, "example.com/"+k[strings.LastIndex(k, "/")+1:]))
		}
	}
}

var _ validator.String = taintKeyValidator{}

// taintKeyValidator refuses, at validate, taint keys that GKE refuses
// (reservedTaint).
type taintKeyValidator struct{}

func (v taintKeyValidator) Description(ctx context.Context) string {
	return strings.ReplaceAll(v.MarkdownDescription(ctx), "`", "")
}

func (taintKeyValidator) MarkdownDescription(context.Context) string { return taintKeyRule }

func (taintKeyValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := reservedTaint(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Reserved Taint", err.Error())
	}
}
