package sandbox

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The sandbox runs the real JobSet controller (sigs.k8s.io/jobset, the
// release GKE's dynamic slicing guide installs), with its CRDs and its
// webhooks, so that JobSets, and the exclusive-topology annotation that
// places each child Job alone on a topology domain, behave as JobSet makes
// them behave, not as the sandbox guesses.

// JobSetGroup is the API group of JobSet's resources.
const JobSetGroup = "jobset.x-k8s.io"

// JobSetGVR is the resource of JobSets (v1alpha2, the version JobSet serves).
var JobSetGVR = schema.GroupVersionResource{Group: JobSetGroup, Version: "v1alpha2", Resource: "jobsets"}

// JobSetExclusiveTopology is the JobSet (or replicated Job template)
// annotation whose value is a node label: JobSet gives each child Job a
// whole domain of that label (a node pool, a slice) to itself.
const JobSetExclusiveTopology = "alpha.jobset.sigs.k8s.io/exclusive-topology"

// jobSetCRDsHint and jobSetBinaryHint say how to get JobSet's parts; every
// error about them ends with one.
const (
	jobSetCRDsHint = "run `make sandbox-bin` (it copies the CRDs and webhook manifests of the pinned JobSet release, " +
		"from the Go module proxy, into bin/jobset-crds), or set GKE_SANDBOX_JOBSET_CRDS to such a directory"
	jobSetBinaryHint = "run `make sandbox-bin` (it builds bin/jobset from tools/sandbox), or set GKE_SANDBOX_JOBSET"
)

// jobSetReadyTimeout bounds the controller's start, within the sandbox's
// own StartTimeout: a controller that is not serving by then will not.
const jobSetReadyTimeout = 60 * time.Second

// jobSetParts are what the sandbox runs JobSet from: found before anything
// starts, so that a missing part fails Start at once.
type jobSetParts struct {
	bin, crdDir string
}

// findJobSet finds the JobSet controller and its CRD directory; nil when
// opts.NoWorkloads leaves JobSet out.
func findJobSet(opts Options) (*jobSetParts, error) {
	if opts.NoWorkloads {
		return nil, nil
	}
	bin, err := findJobSetBinary(opts)
	if err != nil {
		return nil, err
	}
	dir, err := JobSetCRDDir(opts)
	if err != nil {
		return nil, err
	}
	return &jobSetParts{bin: bin, crdDir: dir}, nil
}

// JobSetCRDDir is where the sandbox takes JobSet's CRDs and webhook
// manifests from: opts.JobSetCRDs, else $GKE_SANDBOX_JOBSET_CRDS, else
// jobset-crds beside the running program, else bin/jobset-crds in this
// repository. It fails, saying how to get them, when the directory has no
// CRD.
func JobSetCRDDir(opts Options) (string, error) {
	dir := firstNonEmpty(opts.JobSetCRDs, os.Getenv("GKE_SANDBOX_JOBSET_CRDS"))
	if dir == "" {
		if exe, err := os.Executable(); err == nil && hasCRDs(filepath.Join(filepath.Dir(exe), "jobset-crds")) {
			dir = filepath.Join(filepath.Dir(exe), "jobset-crds")
		}
	}
	if dir == "" {
		if root, ok := repoRoot(); ok {
			dir = filepath.Join(root, "bin", "jobset-crds")
		}
	}
	if dir == "" || !hasCRDs(dir) {
		where := "bin/jobset-crds"
		if dir != "" {
			where = dir
		}
		return "", fmt.Errorf("no JobSet CRDs in %s: %s", where, jobSetCRDsHint)
	}
	return dir, nil
}

// startJobSet starts JobSet while the rest of Start goes on (it needs only
// the API server, and its CRD and controller take a few seconds to be
// ready: see awaitJobSetWebhooks), and returns the wait for it. Stop
// cancels a start still under way and waits for it to end.
func (sb *Sandbox) startJobSet(ctx context.Context, parts *jobSetParts, certs *pki, log io.Writer) (wait func() error) {
	if parts == nil {
		return func() error { return nil }
	}
	wait, sb.jobsetStarting = sb.startInBackground(ctx, "jobset", "JobSet", jobSetReadyTimeout, log,
		func(ctx context.Context, w io.Writer) error { return sb.runJobSet(ctx, parts, certs, w) })
	return wait
}

// runJobSet installs JobSet's CRDs, starts its controller with its webhook
// server on loopback, and registers its webhooks once that server answers
// TLS, then waits until the API server calls them. In that order because
// the webhooks fail closed: registered before the server serves, they
// would refuse every JobSet (and JobSet's pods) meanwhile.
func (sb *Sandbox) runJobSet(ctx context.Context, parts *jobSetParts, certs *pki, log io.Writer) error {
	crds, version, err := readCRDs(parts.crdDir, jobSetCRDsHint)
	if err != nil {
		return err
	}
	webhooks, err := readJobSetWebhooks(parts.crdDir)
	if err != nil {
		return err
	}
	if err := sb.installCRDs(ctx, "JobSet", parts.crdDir, crds); err != nil {
		return err
	}
	run, err := sb.writeJobSetFiles(certs)
	if err != nil {
		return err
	}
	sb.jobset, err = startProcess("jobset", log, parts.bin, run.args()...)
	if err != nil {
		return err
	}
	if err := awaitControllerServing(ctx, sb.jobset, "the JobSet controller", run, sb.CAPEM); err != nil {
		return err
	}
	if err := sb.registerJobSetWebhooks(ctx, webhooks, "https://"+run.webhookAddr); err != nil {
		return err
	}
	if err := sb.awaitJobSetWebhooks(ctx); err != nil {
		return err
	}
	sb.JobSetVersion = version
	return nil
}

// writeJobSetFiles writes the controller's configuration, its kubeconfig
// and its serving certificate into sb.Dir/jobset.
//
// The configuration (JobSet's config.jobset.x-k8s.io/v1alpha1, the file
// its release mounts) turns off what needs a cluster: the internal
// certificate manager (it would write a Secret and patch the webhook
// configurations' caBundle for a Service the sandbox does not have) and
// leader election (one replica). The webhook server serves, on a loopback
// port, the sandbox's own serving certificate (signed by the sandbox CA,
// valid for 127.0.0.1); metrics (served with the same certificate) and
// health probes are on loopback ports of their own.
func (sb *Sandbox) writeJobSetFiles(certs *pki) (*controllerRun, error) {
	dir := filepath.Join(sb.Dir, "jobset")
	files := map[string][]byte{}
	for from, to := range map[string]string{certs.CertFile: "tls.crt", certs.KeyFile: "tls.key"} {
		b, err := os.ReadFile(from)
		if err != nil {
			return nil, err
		}
		files[to] = b
	}
	// A third port for its metrics.
	run, ports, err := newControllerRun(dir, files, 1)
	if err != nil {
		return nil, err
	}
	config := fmt.Sprintf(`apiVersion: config.jobset.x-k8s.io/v1alpha1
kind: Configuration
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: 127.0.0.1
  port: %d
  certDir: %s
metrics:
  bindAddress: 127.0.0.1:%d
  certDir: %s
health:
  healthProbeBindAddress: %s
`, ports[0], dir, ports[2], dir, run.healthAddr)
	if err := os.WriteFile(run.config, []byte(config), 0o600); err != nil {
		return nil, err
	}
	// The controller talks to the API server directly, as the sandbox's
	// own controllers do: the proxy is for client traffic.
	kc := clientcmdapi.NewConfig()
	kc.Clusters["sandbox"] = &clientcmdapi.Cluster{Server: sb.apiserverURL, CertificateAuthorityData: sb.CAPEM}
	kc.AuthInfos["sandbox-admin"] = &clientcmdapi.AuthInfo{Token: sb.Token}
	kc.Contexts["sandbox"] = &clientcmdapi.Context{Cluster: "sandbox", AuthInfo: "sandbox-admin"}
	kc.CurrentContext = "sandbox"
	if err := clientcmd.WriteToFile(*kc, run.kubeconfig); err != nil {
		return nil, err
	}
	return run, nil
}

// tlsServes checks that addr (a webhook server: JobSet's, Kueue's)
// completes a TLS handshake with a certificate for 127.0.0.1 that caPEM
// verifies, as the API server will require.
func tlsServes(ctx context.Context, addr string, caPEM []byte) error {
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: 2 * time.Second}, Config: tlsConfig(caPEM)}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("the webhook server at %s: %w", addr, err)
	}
	return conn.Close()
}

// awaitJobSetWebhooks waits until the API server calls JobSet's webhooks:
// it learns of webhook configurations through a watch, so for a moment
// after they are created it still admits JobSets unchecked. (The first
// JobSet request also makes the API server build the CRD's serving
// machinery, its 9,000-line schema included: about two seconds, paid here
// rather than by the first client.) The pod webhooks are registered in the
// controller just after the JobSet ones, and pods of a JobSet come only
// after a JobSet is created. A dry-run
// create of an invalid JobSet must be refused by the validating webhook,
// and one of a valid JobSet must come back with the defaults the mutating
// webhook sets (the CRD's schema does not set enableDNSHostnames).
func (sb *Sandbox) awaitJobSetWebhooks(ctx context.Context) error {
	dyn, err := dynamic.NewForConfig(sb.directConfig())
	if err != nil {
		return err
	}
	jobsets := dyn.Resource(JobSetGVR).Namespace("default")
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	return waitFor(ctx, sb.jobset, "the API server to call JobSet's webhooks", func(ctx context.Context) error {
		// The first replicated Job may not depend on another.
		_, err := jobsets.Create(ctx, jobSetProbe([]any{map[string]any{"name": "probe", "status": "Ready"}}), dryRun)
		switch {
		case err == nil:
			return errors.New("a JobSet whose first replicated Job depends on another is still admitted")
		case !strings.Contains(err.Error(), "vjobset.kb.io"):
			return err
		}
		got, err := jobsets.Create(ctx, jobSetProbe(nil), dryRun)
		if err != nil {
			return err
		}
		if on, _, _ := unstructured.NestedBool(got.Object, "spec", "network", "enableDNSHostnames"); !on {
			return errors.New("a JobSet is still admitted without JobSet's defaults")
		}
		return nil
	})
}

// jobSetProbe is a JobSet of one replicated Job, for dry runs: valid
// unless it depends on another.
func jobSetProbe(dependsOn []any) *unstructured.Unstructured {
	rjob := map[string]any{
		"name": "probe",
		"template": map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "probe", "image": "probe"}},
		}}}},
	}
	if dependsOn != nil {
		rjob["dependsOn"] = dependsOn
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": JobSetGVR.GroupVersion().String(),
		"kind":       "JobSet",
		"metadata":   map[string]any{"name": "sandbox-webhook-probe", "namespace": "default"},
		"spec":       map[string]any{"replicatedJobs": []any{rjob}},
	}}
}
