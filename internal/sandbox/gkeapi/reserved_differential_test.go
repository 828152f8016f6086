package gkeapi_test

import (
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/provider"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/gkeapi"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The provider's rules for reserved node label and taint keys
// (internal/provider/validator_node_labels.go: it refuses them at plan) and
// the sandbox's (reserved.go: it refuses them at apply, as GKE does) are
// written apart, each following the documents it names; they must agree on
// every key. A disagreement is a bug in one of them, and the test names the
// key and both answers. This external test package may import both sides;
// neither side imports the other.

// reservedKeyCases are the keys both sides judge, each as a node label key
// and as a taint key.
func reservedKeyCases() []string {
	keys := []string{
		// The table.
		"cloud.google.com/gke-spot", "cloud.google.com/gke-nodepool", "cloud.google.com/gke-tpu-topology",
		"cloud.google.com/gke-placement-group", "node.kubernetes.io/instance-type",
		"node.kubernetes.io/exclude-from-external-load-balancers", "node.kubernetes.io/foo", "kubernetes.io/hostname",
		"node-role.kubernetes.io/worker", "k8s.io/x", "example.com/team", "team",
		// The keys the rules name: the kubelet's own labels and domains,
		// the ones GKE's guides have a pool set, GKE's taints and answers.
		"kubernetes.io/arch", "kubernetes.io/os", "beta.kubernetes.io/arch", "beta.kubernetes.io/os",
		"beta.kubernetes.io/instance-type", "topology.kubernetes.io/region", "topology.kubernetes.io/zone",
		"failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
		"kubelet.kubernetes.io/x", "node-restriction.kubernetes.io/x", "cloud.google.com/compute-class",
		"cloud.google.com/gke-tpu-dra-driver", "cloud.google.com/gke-preemptible", "google.com/tpu", "sandbox.gke.io/runtime",
		// Kubernetes' taints and other keys of its domains.
		"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "node.kubernetes.io/unschedulable",
		"node.cloudprovider.kubernetes.io/uninitialized", "node-role.kubernetes.io/control-plane",
		"kubernetes.io/role", "app.kubernetes.io/component", "example.k8s.io/x",
		// Other keys of GKE's domains, and GKE's taints and labels elsewhere.
		"cloud.google.com/gke-queued", "cloud.google.com/gke-quick-remove", "cloud.google.com/machine-family",
		"cloud.google.com/custom-owned-by", "components.gke.io/gke-managed", "node.gke.io/x", "gke.io/x",
		"nvidia.com/gpu", "tpu.google.com/x", "google.com/x",
		// Sub-domains, look-alikes, case and malformed keys.
		"pool.node.kubernetes.io/x", "a.b.kubelet.kubernetes.io/x", "node.kubernetes.io.example.com/x",
		"notkubernetes.io/x", "kubernetes.io.example/x", "example.com/kubernetes.io", "mycloud.google.com.example/x",
		"x.cloud.google.com/y", "cloud.google.com.example/x", "NODE.KUBERNETES.IO/foo", "Node-Role.Kubernetes.io/worker",
		"Cloud.Google.com/gke-tpu-accelerator", "Cloud.Google.com/compute-class", "cloud.google.com/Compute-Class",
		"kubernetes.io/Hostname", "Google.com/tpu", "", "/", "/x", "kubernetes.io/", "cloud.google.com/", "a/b/c",
	}
	// The labels the provider reads and the sandbox sets on TPU nodes.
	keys = append(keys, wellknown.LabelNodePool, wellknown.LabelAccelerator, wellknown.LabelTopologyMode,
		wellknown.LabelTopologyBlock, wellknown.LabelTopologySubBlock, wellknown.LabelTopologyHost,
		wellknown.LabelInstanceType, wellknown.LabelZone, wellknown.LabelHostname, wellknown.AnnotationCreatedByMIG,
		wellknown.LabelSlice, wellknown.LabelSliceTopology, wellknown.AnnotationSliceTopology,
		wellknown.AnnotationRetryOnFailure, wellknown.SliceFinalizer, wellknown.AnnotationOwnerWorkloadNamespace,
		wellknown.AnnotationOwnerWorkloadName, wellknown.AnnotationOwnerPodSet, wellknown.LabelTPUDRADriver,
		wellknown.ResourceTPU, wellknown.DriverTPU)
	keys = append(keys, wellknown.PartitionIDLabels...)
	keys = append(keys, wellknown.PartitionStateLabels...)
	for _, shape := range topology.PartitionShapes {
		keys = append(keys, topology.PartitionIDLabel(shape), topology.PartitionStateLabel(shape))
	}
	return keys
}

func TestReservedKeysAgreeWithProvider(t *testing.T) {
	t.Parallel()
	sides := []struct {
		what              string
		provider, sandbox func(string) (string, bool)
	}{
		{"node label", provider.ReservedNodeLabel, gkeapi.ReservedNodeLabel},
		{"taint", provider.ReservedNodeTaint, gkeapi.ReservedNodeTaint},
	}
	refused := map[string]int{}
	keys := reservedKeyCases()
	for _, side := range sides {
		for _, key := range keys {
			preason, preserved := side.provider(key)
			sreason, sreserved := side.sandbox(key)
			if preserved != sreserved {
				t.Errorf("%s %q: provider %s; sandbox (GKE) %s", side.what, key, verdict(preserved, preason), verdict(sreserved, sreason))
			}
			if (preason != "") != preserved || (sreason != "") != sreserved {
				t.Errorf("%s %q: a verdict without its reason, or a reason without its verdict: provider %q, %v; sandbox %q, %v",
					side.what, key, preason, preserved, sreason, sreserved)
			}
			if preserved {
				refused[side.what]++
			}
		}
	}
	t.Logf("%d keys compared as node labels (%d refused by both) and as taints (%d refused by both)",
		len(keys), refused["node label"], refused["taint"])
}

func verdict(reserved bool, reason string) string {
	if !reserved {
		return "accepts it"
	}
	return "refuses it: " + reason
}
