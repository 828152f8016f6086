package cloud

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// A node of the sandbox registers as a GKE TPU node's kubelet registers
// it: with the google.com/tpu taint (newNode, nodes.go), and with the status written
// here: capacity, the software it runs (status.nodeInfo, which kubectl shows
// as VERSION) and its addresses. From then on kwok, its kubelet, keeps its
// conditions and Lease (the sandbox's kwok.go: kwok's node-initialize stage keeps the
// capacity, nodeInfo and addresses it finds), and the real node lifecycle
// controller of kube-controller-manager taints it while it is not Ready.

// TaintTPU is the taint GKE puts on every TPU node, google.com/tpu=present
// with effect NoSchedule, so that only pods that request TPUs land there.
// Pods that request the google.com/tpu resource get the matching toleration
// from the API server's ExtendedResourceToleration admission plugin, which
// GKE enables and the sandbox's kube-apiserver too.
const TaintTPU = "google.com/tpu"

// ResourceTPU is the extended resource of a TPU node's chips, which GKE's
// TPU device plugin advertises (four on a tpu7x-standard-4t host).
const ResourceTPU corev1.ResourceName = "google.com/tpu"

// nodeKernelVersion, nodeContainerRuntime and NodeOSImage are what a
// Container-Optimized OS node of GKE 1.35 reports; the sandbox's own
// choice of plausible values.
const (
	NodeOSImage          = "Container-Optimized OS from Google"
	nodeKernelVersion    = "6.6.93+"
	nodeContainerRuntime = "containerd://2.0.6"
)

// KubeletVersion is the version a node's kubelet reports: its node pool's,
// which is the cluster's in the sandbox (GKE writes v-prefixed versions
// there, as Kubernetes does).
func KubeletVersion(clusterVersion string) string { return "v" + clusterVersion }

// nodeRegistration is the status a node registers with. Its capacity is a
// tpu7x-standard-4t host's (224 vCPUs, 960 GiB): with the google.com/tpu
// device plugin, 4 chips; with GKE's TPU DRA driver instead (dra), no
// google.com/tpu at all: its chips are devices of a ResourceSlice.
func nodeRegistration(name, clusterVersion string, dra bool) corev1.NodeStatus {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("224"),
		corev1.ResourceMemory: resource.MustParse("960Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	if !dra {
		capacity[ResourceTPU] = resource.MustParse("4")
	}
	n := &corev1.Node{}
	n.Name = name
	setNodeSystemStatus(n, clusterVersion)
	n.Status.Capacity = capacity
	n.Status.Allocatable = capacity.DeepCopy()
	return n.Status
}

// setNodeSystemStatus fills in what a kubelet reports about its node: the
// node's software and its addresses. The values depend only on the node's
// name.
func setNodeSystemStatus(n *corev1.Node, clusterVersion string) {
	id := OpaqueID("machine", n.Name)
	n.Status.NodeInfo = corev1.NodeSystemInfo{
		MachineID:               id[:32],
		SystemUUID:              uuidFromHex(id),
		BootID:                  uuidFromHex(OpaqueID("boot", n.Name)),
		KernelVersion:           nodeKernelVersion,
		OSImage:                 NodeOSImage,
		ContainerRuntimeVersion: nodeContainerRuntime,
		KubeletVersion:          KubeletVersion(clusterVersion),
		OperatingSystem:         "linux",
		Architecture:            "amd64",
	}
	n.Status.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.128.%d.%d", hexByte(id[32:34]), hexByte(id[34:36]))},
		{Type: corev1.NodeHostName, Address: n.Name},
	}
}

// uuidFromHex writes the first 32 hex digits of h as a UUID.
func uuidFromHex(h string) string {
	return fmt.Sprintf("%s-%s-%s-%s-%s", h[:8], h[8:12], h[12:16], h[16:20], h[20:32])
}

// hexByte is the value of two hex digits.
func hexByte(h string) uint8 {
	v, _ := strconv.ParseUint(h, 16, 8)
	return uint8(v)
}
