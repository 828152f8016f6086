package provider

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// The node label keys and taint keys a node pool may not set, because
// Kubernetes or GKE set them on the nodes themselves. GKE adds a pool's
// labels "in addition to any default label(s)", and says that on a
// conflict "the behavior is undefined and conflicts should be avoided"
// (NodeConfig.labels); a pool that sets cloud.google.com/gke-nodepool gets
// nodes that carry the wrong pool label, and a create that waits for them
// for ever.
//
//   - kubernetes.io and k8s.io (and their sub-domains): Kubernetes
//     reserves them for its core components, and the kubelet refuses most
//     of them in --node-labels (NodeRestriction).
//   - cloud.google.com and gke.io (and sub-domains): GKE sets its labels
//     there (gke-nodepool, gke-tpu-accelerator, gke-tpu-partition-*,
//     gce-topology-*, ...), except the few it documents for a pool to set.
//   - The taint google.com/tpu: GKE taints every TPU node with it.
var (
	// kubernetesDomains and gkeDomains own their label keys and taint keys
	// (the domains and every sub-domain of them).
	kubernetesDomains = []string{"kubernetes.io", "k8s.io"}
	gkeDomains        = []string{"cloud.google.com", "gke.io"}
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

// keyDomain is the prefix of a label or taint key (before its "/"), or "".
func keyDomain(key string) string {
	domain, _, found := strings.Cut(key, "/")
	if !found {
		return ""
	}
	return strings.ToLower(domain)
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

// reservedNodeLabel is the ReservedKeyError of a node label key, or nil.
func reservedNodeLabel(key string) *ReservedKeyError {
	return reservedKey("node label", key, gkeSettableLabels, nil)
}

// reservedTaint is the ReservedKeyError of a taint key, or nil.
func reservedTaint(key string) *ReservedKeyError {
	return reservedKey("taint", key, gkeSettableTaints, gkeTaints)
}

func reservedKey(what, key string, settable, gkeOwn []string) *ReservedKeyError {
	domain := keyDomain(key)
	if d, ok := inDomains(domain, kubernetesDomains); ok {
		return &ReservedKeyError{What: what, Key: key, Instead: insteadOf(key),
			Rule: fmt.Sprintf("Kubernetes reserves the keys of the %s domain (and its sub-domains) for its own components: the kubelet sets them, or refuses them", d)}
	}
	if slices.Contains(gkeOwn, strings.ToLower(key)) {
		return &ReservedKeyError{What: what, Key: key, Instead: "Leave it out: GKE sets it. " + insteadOf(key),
			Rule: "GKE sets this " + what + " on every TPU node itself"}
	}
	if d, ok := inDomains(domain, gkeDomains); ok && !slices.Contains(settable, strings.ToLower(key)) {
		allowed := slices.Clone(settable)
		sort.Strings(allowed)
		return &ReservedKeyError{What: what, Key: key, Instead: insteadOf(key),
			Rule: fmt.Sprintf("GKE sets the %ss of the %s domain (and its sub-domains) on its nodes itself "+
				"(cloud.google.com/gke-nodepool, for one, names the node pool), so one set here conflicts with GKE's; "+
				"a pool may set only %s there", what, d, strings.Join(allowed, ", "))}
	}
	return nil
}

var _ validator.Map = nodeLabelsValidator{}

// nodeLabelsValidator refuses, at validate, node label keys that
// Kubernetes or GKE reserve (reservedNodeLabel).
type nodeLabelsValidator struct{}

func (nodeLabelsValidator) Description(context.Context) string {
	return "keys must not be in the kubernetes.io, k8s.io, cloud.google.com or gke.io domains, which Kubernetes and GKE set, " +
		"except cloud.google.com/gke-tpu-dra-driver and cloud.google.com/compute-class"
}

func (v nodeLabelsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

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
		}
	}
}

var _ validator.String = taintKeyValidator{}

// taintKeyValidator refuses, at validate, taint keys that Kubernetes or
// GKE reserve (reservedTaint).
type taintKeyValidator struct{}

func (taintKeyValidator) Description(context.Context) string {
	return "must not be google.com/tpu, nor in the kubernetes.io, k8s.io, cloud.google.com or gke.io domains, " +
		"except cloud.google.com/compute-class, cloud.google.com/gke-spot and cloud.google.com/gke-preemptible"
}

func (v taintKeyValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (taintKeyValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := reservedTaint(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Reserved Taint", err.Error())
	}
}
