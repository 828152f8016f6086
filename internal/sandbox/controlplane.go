package sandbox

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The workload parts of the sandbox are the Kubernetes ecosystem's own:
// kube-scheduler and kube-controller-manager of the API server's release,
// and kwok (kwok.go) as the kubelets of the TPU nodes. They talk to the API
// server directly, not through the proxy, so that the proxy keeps counting
// (and cutting) client traffic only.

// componentUsers are the sandbox's control-plane components, each with a
// bearer token of its own (in tokens.csv) so that the API server's logs
// and audit name who did what. Each is in system:masters: the sandbox is a
// single-user test bed, and the point is who, not least privilege.
var componentUsers = []string{"system:kube-scheduler", "system:kube-controller-manager", "system:kwok"}

// componentKubeconfig writes a kubeconfig for one component in sb.Dir
// (<file>.kubeconfig): the API server's own address, the sandbox CA and the
// component's token.
func (sb *Sandbox) componentKubeconfig(file, user string) (string, error) {
	path := filepath.Join(sb.Dir, file+".kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["sandbox"] = &clientcmdapi.Cluster{Server: sb.apiserverURL, CertificateAuthorityData: sb.CAPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: sb.componentTokens[user]}
	cfg.Contexts["sandbox"] = &clientcmdapi.Context{Cluster: "sandbox", AuthInfo: user}
	cfg.CurrentContext = "sandbox"
	return path, clientcmd.WriteToFile(*cfg, path)
}

// partTimeout bounds the wait for one workload part to be ready, within
// Start's own deadline: a part that does not come up is named with its log
// rather than left to the overall timeout.
const partTimeout = 60 * time.Second

// waitPart waits (at most partTimeout) for a part to pass check, and names
// the part and its log file when it does not.
func (sb *Sandbox) waitPart(ctx context.Context, p *process, what string, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, partTimeout)
	defer cancel()
	if err := waitFor(ctx, p, what, check); err != nil {
		return fmt.Errorf("%s did not become ready: %w (its log: %s)", p.name, err, filepath.Join(sb.Dir, p.name+".log"))
	}
	return nil
}

// startScheduler runs kube-scheduler with its default profile: the real
// filters and scores (taints and tolerations, node selectors and affinity,
// extended resources such as google.com/tpu, and DRA's device allocation).
// It is ready when its /readyz says so (its informers have synced).
func (sb *Sandbox) startScheduler(ctx context.Context, bin string, certs *pki, log io.Writer) (wait func() error, err error) {
	var url string
	sb.scheduler, url, err = sb.startComponent("kube-scheduler", "system:kube-scheduler", "/readyz", bin, certs, log)
	if err != nil {
		return nil, err
	}
	client := componentClient(certs)
	return func() error {
		return sb.waitPart(ctx, sb.scheduler, "kube-scheduler to be ready ("+url+")", func(ctx context.Context) error {
			return httpOK(ctx, client, url, "", "ok")
		})
	}, nil
}

// startComponent starts a component of Kubernetes' control plane
// (kube-scheduler, kube-controller-manager) as user, with a kubeconfig of
// its own, its secure port on loopback (serving certs' certificate) and
// the arguments both take, followed by args; it returns the process and
// the URL of its probe (path, such as /readyz).
func (sb *Sandbox) startComponent(name, user, path, bin string, certs *pki, log io.Writer, args ...string) (*process, string, error) {
	kubeconfig, err := sb.componentKubeconfig(name, user)
	if err != nil {
		return nil, "", err
	}
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	w, err := sb.logWriter(name, log)
	if err != nil {
		return nil, "", err
	}
	p, err := startProcess(name, w, bin, append([]string{
		"--kubeconfig=" + kubeconfig,
		// Delegated authentication and authorization of its own endpoint
		// (only the probe is used) go to the API server with the same
		// identity.
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		// No client certificates to look up in the cluster: the API server
		// authenticates with bearer tokens only.
		"--authentication-skip-lookup",
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + certs.CertFile,
		"--tls-private-key-file=" + certs.KeyFile,
		"--profiling=false",
		"--v=1",
	}, args...)...)
	if err != nil {
		return nil, "", err
	}
	return p, fmt.Sprintf("https://127.0.0.1:%d%s", port, path), nil
}

// componentClient is the client of a component's probe: it trusts the
// sandbox CA.
func componentClient(certs *pki) *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig(certs.CAPEM)}, Timeout: 5 * time.Second}
}

// startControllerManager runs kube-controller-manager with its default
// controllers, among them: the service-account and root-CA publishers
// (every namespace gets its default ServiceAccount, without which the API
// server refuses pods), the Job and ReplicaSet controllers, the garbage
// collector (ResourceSlices and Leases go with their Node), pod GC, the
// ResourceClaim controller (claims from a pod's ResourceClaimTemplates), and
// the node lifecycle controller, which taints NotReady nodes
// node.kubernetes.io/not-ready (and, when a node's kwok heartbeat stops,
// unreachable) and evicts what does not tolerate it.
//
// It is ready when /healthz says so and the default namespace has its
// ServiceAccount: from then on, pods can be created there.
func (sb *Sandbox) startControllerManager(ctx context.Context, bin string, certs *pki, log io.Writer) (wait func() error, err error) {
	var url string
	sb.controllerManager, url, err = sb.startComponent("kube-controller-manager", "system:kube-controller-manager", "/healthz", bin, certs, log,
		// The token controller signs with the key the API server verifies
		// service-account tokens with; the root-CA publisher puts the
		// sandbox CA in every namespace (kube-root-ca.crt).
		"--service-account-private-key-file="+certs.ServiceAccountKeyFile,
		"--root-ca-file="+certs.CAFile,
		"--use-service-account-credentials=false",
		// The node lifecycle controller: look at nodes every 2s (default
		// 5s; nodeMonitorPeriod) so that a host turned UNHEALTHY is
		// tainted within seconds, and taint (NoExecute) at any rate: the default, 0.1 node a
		// second per zone, is for not evicting a whole cluster at once in
		// a real outage, and would make a sub-block's failure take minutes
		// to show here. kwok renews the nodes' Leases every 45s
		// (kwokLeaseSeconds, where it says why), not a kubelet's 10s: a
		// node is Unknown after 2m without one (default 50s), longer with
		// longer Leases (nodeMonitorGrace).
		"--node-monitor-period="+nodeMonitorPeriod(sb.heartbeatScale()).String(),
		"--node-monitor-grace-period="+nodeMonitorGrace(sb.leaseSeconds()).String(),
		"--node-eviction-rate=1000",
		"--secondary-node-eviction-rate=1000",
		"--kube-api-qps=100",
		"--kube-api-burst=200",
	)
	if err != nil {
		return nil, err
	}
	client := componentClient(certs)
	direct := sb.RESTConfig()
	direct.Host = sb.apiserverURL
	kube, err := kubernetes.NewForConfig(direct)
	if err != nil {
		return nil, err
	}
	return func() error {
		return sb.waitPart(ctx, sb.controllerManager, "kube-controller-manager to be healthy ("+url+") and the default ServiceAccount of namespace default",
			func(ctx context.Context) error {
				if err := httpOK(ctx, client, url, "", "ok"); err != nil {
					return err
				}
				_, err := kube.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
				return err
			})
	}, nil
}
