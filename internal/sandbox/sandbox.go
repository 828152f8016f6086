// Package sandbox runs the local stand-in for a GKE cluster: a real
// kube-apiserver with etcd, its own CA and bearer-token auth, the Slice
// CRD installed, and a proxy in front of it that tests can use to cut watch
// connections; kube-scheduler, kube-controller-manager and kwok (the nodes'
// kubelets) make workloads run on the emulated node pools' nodes. The
// emulated GKE and Compute APIs and the slice-controller simulator build on
// it.
package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dra"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dws"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
)

// Sandbox is a running sandbox.
type Sandbox struct {
	// Dir is the sandbox's working directory.
	Dir string
	// KubeHost is the URL clients use for Kubernetes (the sandbox proxy).
	KubeHost string
	// CAPEM is the sandbox CA certificate (PEM) that signed every endpoint.
	CAPEM []byte
	// Token is the bearer token of the sandbox administrator. Secret.
	Token string
	// Kubeconfig is the path of a kubeconfig for KubeHost.
	Kubeconfig string
	// GoogleURL is the base URL of the emulated GKE and Compute Engine
	// APIs (plain HTTP on loopback), for the provider's container_endpoint
	// and compute_endpoint; the control endpoint is under /sandbox/.
	GoogleURL string
	// Inventory is the emulated project.
	Inventory *Inventory
	// KueueVersion is the Kueue release whose CRDs are installed (and
	// whose controller runs, unless NoWorkloads).
	KueueVersion string
	// JobSetVersion is the JobSet release that runs ("" with NoWorkloads).
	JobSetVersion string
	// DWS holds the node pools with queued provisioning that the emulated
	// Dynamic Workload Scheduler provisions, and its faults (dws.go).
	DWS *dws.Pools

	etcdURL      string
	apiserverURL string
	etcd         *process
	apiserver    *process
	// The workload parts (controlplane.go, kwok.go), nil when off.
	scheduler         *process
	controllerManager *process
	kwok              *process
	// nodeLeaseSeconds is Options.NodeLeaseSeconds (kwok.go).
	nodeLeaseSeconds int
	// componentTokens are the bearer tokens of the control-plane
	// components, by user name (componentUsers).
	componentTokens map[string]string
	proxy           *kubeProxy
	world           *cloud.World
	google          *http.Server
	controller      *slicecontroller.Controller
	stopCtx         context.CancelFunc
	removeDir       bool
	logFiles        []*os.File

	// JobSet (jobset.go): its controller, and what cancels its start and
	// waits for it to end.
	jobset         *process
	jobsetStarting func()

	// Kueue (kueue_manager.go): its controller, and what cancels its start
	// and waits for it to end.
	kueueController *process
	kueueStarting   func()
}

// Start brings the sandbox up and returns when every part is ready.
func Start(ctx context.Context, opts Options) (sb *Sandbox, err error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 90 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	parts, err := findParts(opts)
	if err != nil {
		return nil, err
	}
	if sb, err = newSandbox(opts.Dir); err != nil {
		return nil, err
	}
	sb.nodeLeaseSeconds = opts.NodeLeaseSeconds
	// The returns below give (nil, err): stop what was started through a
	// variable of its own, which they do not clear.
	started := sb
	defer func() {
		if err != nil {
			started.Stop()
		}
	}()

	certs, err := sb.newCredentials()
	if err != nil {
		return nil, err
	}
	if err := sb.startKubernetes(ctx, certs, parts.bins, opts.Log); err != nil {
		return nil, err
	}
	if err := sb.startParts(ctx, parts, certs, opts); err != nil {
		return nil, err
	}
	return sb, nil
}

// sandboxParts are what Start needs before it starts anything: the binaries,
// Kueue's CRDs, and JobSet's and Kueue's parts (both nil with NoWorkloads).
type sandboxParts struct {
	bins      binaries
	kueueCRDs string
	jobSet    *jobSetParts
	kueue     *kueueParts
}

// findParts finds what Start needs, or says what is missing.
func findParts(opts Options) (parts sandboxParts, err error) {
	if parts.bins, err = findBinaries(opts); err != nil {
		return sandboxParts{}, err
	}
	if parts.kueueCRDs, err = KueueCRDDir(opts); err != nil {
		return sandboxParts{}, err
	}
	if parts.jobSet, err = findJobSet(opts); err != nil { // JobSet (jobset.go); nil with NoWorkloads
		return sandboxParts{}, err
	}
	if parts.kueue, err = findKueue(opts); err != nil { // Kueue (kueue_manager.go); nil with NoWorkloads
		return sandboxParts{}, err
	}
	return parts, nil
}

// newSandbox is a sandbox with nothing started in dir, which it creates;
// with dir empty, in a new temporary directory that Stop removes.
func newSandbox(dir string) (*Sandbox, error) {
	sb := &Sandbox{Dir: dir}
	if sb.Dir == "" {
		var err error
		if sb.Dir, err = os.MkdirTemp("", "gke-sandbox-"); err != nil {
			return nil, err
		}
		sb.removeDir = true
	} else if err := os.MkdirAll(sb.Dir, 0o700); err != nil {
		return nil, err
	}
	return sb, nil
}

// newCredentials makes the sandbox's certificates (in sb.Dir), the bearer
// token of its users and those of the control-plane components.
func (sb *Sandbox) newCredentials() (*pki, error) {
	certs, err := newPKI(sb.Dir)
	if err != nil {
		return nil, err
	}
	sb.CAPEM = certs.CAPEM
	sb.Token = randomHex(24)
	sb.componentTokens = map[string]string{}
	for _, user := range componentUsers {
		sb.componentTokens[user] = randomHex(24)
	}
	return certs, nil
}

// startKubernetes starts etcd, the API server and the proxy in front of it
// (sb.KubeHost).
func (sb *Sandbox) startKubernetes(ctx context.Context, certs *pki, bins binaries, log io.Writer) error {
	if err := sb.startEtcd(ctx, bins.etcd, log); err != nil {
		return err
	}
	if err := sb.startAPIServer(ctx, bins.kubeAPIServer, certs, log); err != nil {
		return err
	}
	var err error
	if sb.proxy, err = newKubeProxy(sb.apiserverURL, certs.CAPEM, certs.CertFile, certs.KeyFile); err != nil {
		return fmt.Errorf("starting the Kubernetes proxy: %w", err)
	}
	sb.KubeHost = sb.proxy.URL
	return nil
}

// startParts starts, once the API server is up, everything else: JobSet
// and Kueue, the CRDs and the slice admission, the kubeconfig, the workload
// parts and the emulated Google APIs; and waits for JobSet and Kueue.
func (sb *Sandbox) startParts(ctx context.Context, parts sandboxParts, certs *pki, opts Options) error {
	jobSetStarted := sb.startJobSet(ctx, parts.jobSet, certs, opts.Log) // JobSet (jobset.go) starts beside what follows
	// Kueue (kueue_manager.go) installs its CRDs and starts beside JobSet
	// and what follows; without it, the CRDs are installed here.
	kueueStarted := sb.startKueue(ctx, parts.kueue, parts.kueueCRDs, opts.Log)
	if err := sb.installSliceCRD(ctx); err != nil {
		return err
	}
	if parts.kueue == nil {
		if err := sb.installKueueCRDs(ctx, parts.kueueCRDs, nil); err != nil {
			return err
		}
	}
	if err := sb.installSliceAdmission(ctx); err != nil {
		return err
	}
	if err := sb.writeKubeconfig(); err != nil {
		return err
	}
	if err := sb.startWorkloadParts(ctx, parts.bins, certs, opts); err != nil {
		return err
	}
	if err := jobSetStarted(); err != nil {
		return err
	}
	if err := kueueStarted(); err != nil {
		return err
	}
	return sb.startGoogleAPIs(opts, certs)
}

// startWorkloadParts starts what makes workloads run: kwok (the nodes'
// kubelet), and unless opts.NoWorkloads, kube-controller-manager and
// kube-scheduler; and installs the TPU DRA driver's DeviceClass. The three
// start together (each waits for the API server only) and Start waits for
// all of them.
func (sb *Sandbox) startWorkloadParts(ctx context.Context, bins binaries, certs *pki, opts Options) error {
	direct := sb.RESTConfig()
	direct.Host = sb.apiserverURL
	kube, err := kubernetes.NewForConfig(direct)
	if err != nil {
		return err
	}
	if err := dra.InstallDeviceClass(ctx, kube.ResourceV1().DeviceClasses()); err != nil {
		return err
	}
	// Each part's process is started here, one after the other; then the
	// waits for their readiness run together.
	starts := []func() (func() error, error){func() (func() error, error) { return sb.startKwok(ctx, bins.kwok, opts.Log) }}
	if !opts.NoWorkloads {
		starts = append(starts,
			func() (func() error, error) {
				return sb.startControllerManager(ctx, bins.kubeControllerMgr, certs, opts.Log)
			},
			func() (func() error, error) { return sb.startScheduler(ctx, bins.kubeScheduler, certs, opts.Log) })
	}
	var waits []func() error
	for _, start := range starts {
		wait, err := start()
		if err != nil {
			return err
		}
		waits = append(waits, wait)
	}
	errs := make(chan error, len(waits))
	for _, wait := range waits {
		go func() { errs <- wait() }()
	}
	var first error
	for range waits {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Stop ends every process the sandbox started and removes its temporary
// directory. It is safe to call more than once.
func (sb *Sandbox) Stop() {
	if sb.google != nil {
		_ = sb.google.Close()
	}
	if sb.stopCtx != nil {
		sb.stopCtx()
	}
	if sb.proxy != nil {
		sb.proxy.close()
	}
	if sb.jobsetStarting != nil {
		sb.jobsetStarting()
	}
	if sb.kueueStarting != nil {
		sb.kueueStarting()
	}
	// The API server's clients first, then the API server, then etcd.
	for _, p := range []*process{sb.kueueController, sb.jobset, sb.kwok, sb.scheduler, sb.controllerManager} {
		p.stop(10 * time.Second)
	}
	sb.kueueController, sb.jobset, sb.kwok, sb.scheduler, sb.controllerManager = nil, nil, nil, nil, nil
	sb.apiserver.stop(10 * time.Second)
	sb.etcd.stop(10 * time.Second)
	sb.apiserver, sb.etcd = nil, nil
	for _, f := range sb.logFiles {
		_ = f.Close()
	}
	sb.logFiles = nil
	if sb.removeDir {
		_ = os.RemoveAll(sb.Dir)
	}
}

// RESTConfig is a client configuration for the sandbox's Kubernetes API,
// through the proxy, with TLS verified against the sandbox CA.
func (sb *Sandbox) RESTConfig() *rest.Config {
	return &rest.Config{
		Host:            sb.KubeHost,
		BearerToken:     sb.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: sb.CAPEM},
		QPS:             100,
		Burst:           200,
	}
}

func (sb *Sandbox) logWriter(name string, log io.Writer) (io.Writer, error) {
	if log != nil {
		return log, nil
	}
	f, err := os.Create(filepath.Join(sb.Dir, name+".log"))
	if err != nil {
		return nil, err
	}
	sb.logFiles = append(sb.logFiles, f)
	return f, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
