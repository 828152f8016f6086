package sandbox

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// kwok (Kubernetes WithOut Kubelet) is the kubelet of every node of the
// sandbox's node pools: it renews the nodes' Leases (the heartbeat the node
// lifecycle controller watches), writes their Ready condition, and plays
// the lifecycle of the pods bound to them (Running; a Job's pods then
// Succeeded; deleted pods gone). What it does is given by kwok's own
// Stages, copied unchanged from the pinned release into kwokstages/:
//
//   - node-initialize (fast): a new node turns Ready, keeping the capacity,
//     allocatable, nodeInfo and addresses the sandbox registered it with.
//   - node-heartbeat-with-lease: the Lease is renewed (see
//     kwokLeaseSeconds) and the status is rewritten only about every 10
//     minutes (600-610 s), as a kubelet with leases does (at scale, as
//     many times less often as the Leases are longer: heartbeatScale).
//   - node-not-ready (chaos): a node labelled
//     node-not-ready.stage.kwok.x-k8s.io=true reports Ready=False, with the
//     reason and message of its annotations. The sandbox labels the node of
//     an UNHEALTHY host so, and removes the label on repair (node-initialize
//     then makes it Ready again). This models a TPU host whose kubelet is up
//     and reports the node NotReady, as GKE's TPU health checks make it
//     (rather than a silent node whose Lease expires, which the node
//     lifecycle controller would mark Unknown and taint unreachable only
//     after its 50s grace). The stage rewrites the condition about every
//     second while the label is there: a status write a second per
//     unhealthy node.
//   - pod-ready (fast): a bound pod is Running and Ready at once.
//   - pod-complete (general): a Job's running pod Succeeds after 1-5s
//     (a pod's annotation pod-complete.stage.kwok.x-k8s.io/delay, e.g.
//     "60s", makes it run longer).
//   - pod-delete (fast): a pod being deleted is gone at once.
//
//go:embed kwokstages/*.yaml
var kwokStages embed.FS

// kwokStageFiles are the Stages kwok runs with, in kwokstages/.
var kwokStageFiles = []string{
	"node-initialize.yaml", "node-heartbeat-with-lease.yaml", "node-not-ready.yaml",
	"pod-ready.yaml", "pod-complete.yaml", "pod-delete.yaml",
}

// The label and annotations of kwok's node-not-ready stage.
const (
	labelKwokNotReady      = cloud.LabelKwokNotReady
	annotationNotReadyWhy  = cloud.AnnotationNotReadyWhy
	annotationNotReadyText = cloud.AnnotationNotReadyText
)

// kwokLeaseSeconds is the duration of the nodes' Leases; kwok renews them
// at a quarter of it, every 45s. A kubelet's is 40s (renewed every 10s):
// with the full-pod inventory's 2304 nodes that is 230 Lease writes a
// second, and 576 nodes at that rate already kept etcd, the API server,
// kube-controller-manager and kwok at 0.54 cores when idle (2 cores
// measured); a 45s heartbeat costs a quarter of that (all 2304 nodes: 0.52
// cores). What
// the longer interval changes is only how soon a node whose heartbeat stops
// turns Unknown (kube-controller-manager's --node-monitor-grace-period,
// set to 2m to match), and the sandbox's heartbeats stop only if kwok does.
const kwokLeaseSeconds = 180

// DefaultNodeLeaseSeconds is the nodes' Lease duration unless
// Options.NodeLeaseSeconds says otherwise (kwokLeaseSeconds).
const DefaultNodeLeaseSeconds = kwokLeaseSeconds

// leaseSeconds is the duration of the nodes' Leases: Options.NodeLeaseSeconds,
// else kwokLeaseSeconds. At scale (the benchmarks' inventories of several
// pods: 9216 nodes at four) the Lease writes grow with the nodes; a Lease
// as many times longer as there are pods keeps them at the rate of one pod
// (about 51 a second), which a 2-core machine bears beside the plans. What
// it changes is again only how soon a node whose heartbeat stops turns
// Unknown (nodeMonitorGrace): 8m at four pods.
func (sb *Sandbox) leaseSeconds() int {
	if sb.nodeLeaseSeconds > 0 {
		return sb.nodeLeaseSeconds
	}
	return kwokLeaseSeconds
}

// nodeMonitorPeriod is kube-controller-manager's --node-monitor-period:
// how often the node lifecycle controller looks at every node. 2s (the
// default is 5s) so that a host turned UNHEALTHY is tainted within seconds;
// times heartbeatScale at scale, where the look at 9,216 nodes every 2s
// kept the controller manager at 0.18 cores with nothing to do.
func nodeMonitorPeriod(scale int) time.Duration {
	return time.Duration(max(1, scale)) * 2 * time.Second
}

// nodeMonitorGrace is kube-controller-manager's --node-monitor-grace-period
// for Leases of leaseSeconds: 2m for kwokLeaseSeconds, and in proportion,
// so that a node misses a Lease renewal (every quarter of leaseSeconds)
// more than twice before it turns Unknown.
func nodeMonitorGrace(leaseSeconds int) time.Duration {
	return time.Duration(leaseSeconds) * 2 * time.Second / 3
}

// heartbeatScale is how many times longer than the default the nodes'
// Leases are (Options.NodeLeaseSeconds over kwokLeaseSeconds; at least 1):
// the number of pods of the benchmarks' inventories at scale. The other
// node work that grows with the nodes while nothing runs on them is
// stretched by as much, so that the whole fleet costs what one pod does:
// kwok's rewrite of each node's status (every 600-610 s by default, 40
// minutes at four pods: 9,216 rewrites every 10 minutes, each a node sent
// to every node watcher, kept the API server, kwok and the watchers at
// about half a core more) and the node lifecycle controller's look at
// every node (nodeMonitorPeriod).
func (sb *Sandbox) heartbeatScale() int {
	return max(1, sb.leaseSeconds()/kwokLeaseSeconds)
}

// The delay of kwok's node-heartbeat-with-lease stage, as its release has it.
const (
	heartbeatDelay  = "    durationMilliseconds: 600000\n    jitterDurationMilliseconds: 610000\n"
	heartbeatStage  = "node-heartbeat-with-lease.yaml"
	heartbeatDelayF = "    durationMilliseconds: %d\n    jitterDurationMilliseconds: %d\n"
)

// kwokConfig is kwok's configuration file: the Stages, as YAML documents,
// with the node status rewrite's delay times scale (heartbeatScale).
func kwokConfig(scale int) ([]byte, error) {
	var buf bytes.Buffer
	for _, name := range kwokStageFiles {
		b, err := fs.ReadFile(kwokStages, "kwokstages/"+name)
		if err != nil {
			return nil, err
		}
		if name == heartbeatStage && scale > 1 {
			if !bytes.Contains(b, []byte(heartbeatDelay)) {
				return nil, fmt.Errorf("kwokstages/%s: its delay is not kwok v0.8.0's (%q): say how to stretch it", name, heartbeatDelay)
			}
			b = bytes.Replace(b, []byte(heartbeatDelay), fmt.Appendf(nil, heartbeatDelayF, 600000*scale, 610000*scale), 1)
		}
		buf.WriteString("---\n")
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// startKwok runs kwok for the nodes of the emulated node pools (those with
// the node-pool label; nodes anyone else makes are left alone). It is ready
// when its /healthz answers, which it serves once its controllers run.
func (sb *Sandbox) startKwok(ctx context.Context, bin string, log io.Writer) (wait func() error, err error) {
	kubeconfig, err := sb.componentKubeconfig("kwok", "system:kwok")
	if err != nil {
		return nil, err
	}
	cfg, err := kwokConfig(sb.heartbeatScale())
	if err != nil {
		return nil, err
	}
	cfgFile := filepath.Join(sb.Dir, "kwok.yaml")
	if err := os.WriteFile(cfgFile, cfg, 0o600); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	w, err := sb.logWriter("kwok", log)
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// KWOK_WORKDIR: kwok also reads ~/.kwok/kwok.yaml when it exists; a
	// work directory of the sandbox's own keeps a user's kwok settings out.
	sb.kwok, err = startProcessEnv("kwok", w, []string{"KWOK_WORKDIR=" + filepath.Join(sb.Dir, "kwok")}, bin,
		"--kubeconfig="+kubeconfig,
		"--config="+cfgFile,
		"--manage-nodes-with-label-selector="+wellknown.LabelNodePool,
		// Pod IPs from a range of GKE's shape (kwok's default is a /24:
		// 256 pods in all).
		"--cidr=10.4.0.0/14",
		"--server-address="+addr,
		"--node-lease-duration-seconds="+strconv.Itoa(sb.leaseSeconds()),
	)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: 5 * time.Second}
	url := "http://" + addr + "/healthz"
	return func() error {
		return sb.waitPart(ctx, sb.kwok, "kwok to be ready ("+url+")", func(ctx context.Context) error {
			return httpOK(ctx, client, url, "", "ok")
		})
	}, nil
}
