package sandbox

import (
	"io"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecheck"
)

// Options configure Start. Zero values pick sensible defaults.
type Options struct {
	// Dir holds certificates, etcd data, logs and the kubeconfig. Default:
	// a new temporary directory, removed by Stop.
	Dir string
	// KubeAPIServer is the path of the kube-apiserver binary. Default:
	// $GKE_SANDBOX_KUBE_APISERVER, else kube-apiserver beside the running
	// program, else bin/kube-apiserver in this repository (built by
	// `make sandbox-bin`), else kube-apiserver on PATH.
	KubeAPIServer string
	// Etcd is the path of the etcd binary. Default: $GKE_SANDBOX_ETCD, else
	// etcd on PATH (Debian package etcd-server).
	Etcd string
	// KubeScheduler, KubeControllerManager and Kwok are the paths of the
	// workload parts' binaries. Default: as for KubeAPIServer, with
	// $GKE_SANDBOX_KUBE_SCHEDULER, $GKE_SANDBOX_KUBE_CONTROLLER_MANAGER and
	// $GKE_SANDBOX_KWOK, and bin/kube-scheduler, bin/kube-controller-manager
	// and bin/kwok (all built by `make sandbox-bin`).
	KubeScheduler         string
	KubeControllerManager string
	Kwok                  string
	// NoWorkloads leaves kube-scheduler, kube-controller-manager, the
	// JobSet controller and Kueue off: nothing schedules pods, runs Jobs or
	// JobSets, queues and admits them, makes ResourceClaims, creates
	// ServiceAccounts (so the API server refuses pods) or taints NotReady
	// nodes (Kueue's CRDs are installed all the same). kwok, the nodes' kubelet,
	// runs regardless: the nodes of the emulated node pools need it to be
	// Ready. Default (false): everything runs. For the few tests and
	// benchmarks that must not pay for the workload parts.
	NoWorkloads bool
	// KueueCRDs is the directory of Kueue's CRDs, which Start installs.
	// Default: see KueueCRDDir (bin/kueue-crds, from `make sandbox-bin`).
	KueueCRDs string
	// JobSet is the path of the JobSet controller binary. Default:
	// $GKE_SANDBOX_JOBSET, else jobset beside the running program, else
	// bin/jobset in this repository (built by `make sandbox-bin`), else
	// jobset on PATH.
	JobSet string
	// JobSetCRDs is the directory of JobSet's CRDs and webhook manifests.
	// Default: see JobSetCRDDir (bin/jobset-crds, from `make sandbox-bin`).
	JobSetCRDs string
	// Kueue is the path of Kueue's controller binary. Default:
	// $GKE_SANDBOX_KUEUE, else kueue beside the running program, else
	// bin/kueue in this repository (built by `make sandbox-bin`), else
	// kueue on PATH. Its webhook manifests are in the Kueue CRD directory
	// (KueueCRDs).
	Kueue string
	// Log receives the output of etcd and kube-apiserver. Default: files in Dir.
	Log io.Writer
	// StartTimeout bounds start-up. Default 90s.
	StartTimeout time.Duration
	// Inventory is the emulated project and its reservations. Default:
	// DefaultInventory (two blocks of four sub-blocks).
	Inventory *Inventory
	// Faults are injected from the start; change them with SetFaults.
	Faults Faults
	// Delays, when set, runs the emulated cloud's timed waits in place of
	// timers: the delays the faults inject (an API's latency, an
	// operation's time, a new pool's late Nodes, a slice's activation)
	// and the time faulty hosts and maintenance take to end. It is given
	// each (what waits, for whom, and how long the faults say: Delay) and
	// calls then once it is to end, never before it returns and not in
	// the goroutine that called it. Default: a timer of the delay's
	// length. Tests set it to end a delay at a step of their own (a pool
	// deleted before its late Nodes are made; a slice seen ACTIVATING
	// before it may turn ACTIVE), and to count the delays, with no clock.
	Delays func(d Delay, then func())
	// NodeLeaseSeconds is the duration of the nodes' Leases, which kwok
	// renews at a quarter of it (kwok.go). Default kwokLeaseSeconds; longer
	// for inventories of several pods (benchmarks at scale).
	NodeLeaseSeconds int
	// NodeReadyTimeout bounds how long the emulated GKE waits for a new
	// pool's nodes to turn Ready (kwok writes it). Default
	// cloud.NodeReadyTimeout (2m); longer for inventories of several pods,
	// where kwok and kube-controller-manager lag further behind.
	NodeReadyTimeout time.Duration
	// SliceCheck says who runs Kueue's slice admission check (the
	// AdmissionChecks of controllerName accelerator.gke.io/slice): "" or
	// SliceCheckEmulated, the sandbox's emulation of the open-source
	// controller (its controller and its webhook); SliceCheckExternal, a
	// controller run outside the sandbox (the open-source one, by hand):
	// the sandbox then starts neither and registers no slice webhook.
	// Kueue runs either way, and AdmissionChecks are left to whoever
	// makes them (gke_kueue_slicing): their controller marks them Active.
	SliceCheck string
	// SliceCheckTiming tunes the emulated check: how long a Slice may take
	// to turn ACTIVE before it is made again, the requeue delay of an
	// eviction, how soon a Slice's change is looked at, its clock.
	// Default: the open-source controller's (slicecheck.Options).
	SliceCheckTiming slicecheck.Options
}

// The values of Options.SliceCheck.
const (
	SliceCheckEmulated = "emulated"
	SliceCheckExternal = "external"
)

// DefaultNodeReadyTimeout is Options.NodeReadyTimeout's default.
const DefaultNodeReadyTimeout = cloud.NodeReadyTimeout
