package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The sandbox runs Kueue's real controller (sigs.k8s.io/kueue, cmd/kueue,
// the release whose CRDs it installs), with its webhooks, so that Jobs and
// JobSets with a queue name are queued, admitted (topology-aware
// scheduling included) and started as Kueue does it, not as the sandbox
// guesses. It manages Jobs and JobSets that name a LocalQueue
// (kueue.x-k8s.io/queue-name), and leaves the others alone.

// kueueBinaryHint says how to get Kueue's controller.
const kueueBinaryHint = "run `make sandbox-bin` (it builds bin/kueue from tools/sandbox), or set GKE_SANDBOX_KUEUE"

// kueueReadyTimeout bounds Kueue's start, within the sandbox's own
// StartTimeout: a controller that is not serving by then will not.
const kueueReadyTimeout = 60 * time.Second

// kueueFrameworks are the workloads Kueue manages here: Jobs and JobSets
// (Configuration integrations.frameworks). Not pods: GKE's TPU workloads
// come as Jobs and JobSets, and the pod integration would have Kueue gate
// every pod of a queue-labelled namespace.
var kueueFrameworks = []string{"batch/job", "jobset.x-k8s.io/jobset"}

// kueueParts are what the sandbox runs Kueue from: found and read before
// anything starts, so that a missing part fails Start at once.
type kueueParts struct {
	bin string
	// provreqDir holds the ProvisioningRequest CRD, installed before
	// Kueue starts (its provisioning admission check needs the API).
	provreqDir  string
	webhooks    []*unstructured.Unstructured
	conversions []kueueConversion
	// withJobSet: the JobSet controller runs too, and Kueue is to manage
	// JobSets from its start.
	withJobSet bool
	// certs are Kueue's webhook certificates, made in the background from
	// the start (an RSA key takes a moment).
	certs func() (*kueueCerts, error)
}

// findKueue finds Kueue's controller and reads its webhook manifests from
// the Kueue CRD directory; nil when opts.NoWorkloads leaves Kueue out (its
// CRDs are installed regardless).
func findKueue(opts Options) (*kueueParts, error) {
	if opts.NoWorkloads {
		return nil, nil
	}
	bin, err := findBuiltBinary("kueue", opts.Kueue, "GKE_SANDBOX_KUEUE")
	if err != nil {
		return nil, fmt.Errorf("no Kueue controller binary: %s", kueueBinaryHint)
	}
	dir, err := KueueCRDDir(opts)
	if err != nil {
		return nil, err
	}
	webhooks, err := readKueueWebhooks(dir)
	if err != nil {
		return nil, err
	}
	conversions, err := readKueueConversions(dir)
	if err != nil {
		return nil, err
	}
	provreqDir, err := ProvReqCRDDir()
	if err != nil {
		return nil, err
	}
	certs := make(chan struct{})
	parts := &kueueParts{bin: bin, provreqDir: provreqDir, webhooks: webhooks, conversions: conversions, withJobSet: true}
	var made *kueueCerts
	var certErr error
	go func() {
		defer close(certs)
		made, certErr = newKueueCerts()
	}()
	parts.certs = func() (*kueueCerts, error) {
		<-certs
		return made, certErr
	}
	return parts, nil
}

// startKueue installs Kueue's CRDs from crdDir and starts Kueue while the
// rest of Start goes on (it needs the API server, and JobSet's API, which
// it waits for), and returns the wait for it. Stop cancels a start still
// under way and waits for it to end.
func (sb *Sandbox) startKueue(ctx context.Context, parts *kueueParts, crdDir string, log io.Writer) (wait func() error) {
	if parts == nil {
		return func() error { return nil }
	}
	wait, sb.kueueStarting = sb.startInBackground(ctx, "kueue", "Kueue", kueueReadyTimeout, log,
		func(ctx context.Context, w io.Writer) error { return sb.runKueue(ctx, parts, crdDir, w) })
	return wait
}

// runKueue prepares what Kueue finds in a cluster (its CRDs with their
// conversion webhooks, its namespace, its certificate Secret), starts its
// controller with its webhook server on loopback, registers its admission
// webhooks once that server answers TLS, then waits until the API server
// calls them. The admission webhooks come last because they fail closed:
// registered before the server serves, they would refuse every Job (and,
// for the pod webhook, every pod) meanwhile.
func (sb *Sandbox) runKueue(ctx context.Context, parts *kueueParts, crdDir string, log io.Writer) error {
	cfg := sb.directConfig()
	// The v1beta1 probe (awaitKueueWebhooks) draws a deprecation warning,
	// which is no news to anyone.
	cfg.WarningHandler = rest.NoWarnings{}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	certs, err := parts.certs()
	if err != nil {
		return err
	}
	run, err := sb.writeKueueFiles(certs)
	if err != nil {
		return err
	}
	baseURL := "https://" + run.webhookAddr
	conversions, err := pointConversions(parts.conversions, baseURL, certs.caCert)
	if err != nil {
		return err
	}
	if err := sb.installKueueCRDs(ctx, crdDir, conversions); err != nil {
		return err
	}
	if err := sb.installProvReqCRDs(ctx, parts.provreqDir); err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: KueueNamespace}}
	if _, err := kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the namespace %s: %w", KueueNamespace, err)
	}
	if _, err := kube.CoreV1().Secrets(KueueNamespace).Create(ctx, certs.secret(), metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating Kueue's certificate Secret: %w", err)
	}
	if parts.withJobSet {
		// Kueue sets its JobSet integration up at once if JobSet's API is
		// served, else polls for it with a growing back-off.
		if err := waitFor(ctx, sb.apiserver, "JobSet's API to be served (Kueue manages JobSets)", func(context.Context) error {
			return apiServed(cfg, JobSetGVR)
		}); err != nil {
			return err
		}
	}
	sb.kueueController, err = startProcess("kueue", log, parts.bin, run.args()...)
	if err != nil {
		return err
	}
	if err := awaitControllerServing(ctx, sb.kueueController, "Kueue", run, certs.caCert); err != nil {
		return err
	}
	if err := sb.registerKueueWebhooks(ctx, dyn, parts.webhooks, baseURL, certs.caCert); err != nil {
		return err
	}
	return sb.awaitKueueWebhooks(ctx, dyn)
}

// apiServed says whether discovery lists the resource gvr.
func apiServed(cfg *rest.Config, gvr schema.GroupVersionResource) error {
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	list, err := disc.ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == gvr.Resource }) {
		return fmt.Errorf("%s is not served in %s yet", gvr.Resource, gvr.GroupVersion())
	}
	return nil
}

// writeKueueFiles writes Kueue's configuration, its kubeconfig and its
// serving certificate into sb.Dir/kueue.
//
// The configuration (config.kueue.x-k8s.io/v1beta2, the file its release
// mounts): namespace kueue-system; no leader election (one replica); the
// internal certificate manager on, finding the sandbox's certificates (see
// kueue_certs.go); the webhook server on a loopback port, the health probes
// on another, metrics off (nothing scrapes them); the controllers'
// concurrency and the client's rate limits are the release's own
// (config/components/manager/controller_manager_config.yaml; Kueue's
// built-in defaults are lower). Kueue manages only Jobs
// and JobSets that name a queue. Topology-aware scheduling is on by
// default in this release and is set so all the same, so that a release
// that turns it off fails here rather than quietly. waitForPodsReady is
// left out (off). The ProvisioningRequest admission check
// (kueue.x-k8s.io/provisioning-request) has no feature gate in this
// release (ProvisioningACC has graduated and is gone from pkg/features):
// Kueue sets it up when the ProvisioningRequest API is served at its
// start, which runKueue sees to. The on-demand visibility API is off: it would serve on a
// fixed port (8082) on every address, and write certificates under
// /visibility.
func (sb *Sandbox) writeKueueFiles(certs *kueueCerts) (*controllerRun, error) {
	dir := filepath.Join(sb.Dir, "kueue")
	run, ports, err := newControllerRun(dir, map[string][]byte{"tls.crt": certs.cert, "tls.key": certs.key}, 0)
	if err != nil {
		return nil, err
	}
	config := fmt.Sprintf(`apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: %s
manageJobsWithoutQueueName: false
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: true
  webhookServiceName: %s
  webhookSecretName: %s
webhook:
  host: 127.0.0.1
  port: %d
  certDir: %s
metrics:
  bindAddress: "0"
health:
  healthProbeBindAddress: %s
controller:
  groupKindConcurrency:
    Job.batch: 5
    Pod: 5
    Workload.kueue.x-k8s.io: 5
    LocalQueue.kueue.x-k8s.io: 1
    Cohort.kueue.x-k8s.io: 1
    ClusterQueue.kueue.x-k8s.io: 1
    ResourceFlavor.kueue.x-k8s.io: 1
clientConnection:
  qps: 50
  burst: 100
integrations:
  frameworks: [%s]
featureGates:
  TopologyAwareScheduling: true
  VisibilityOnDemand: false
`, KueueNamespace, kueueWebhookService, kueueWebhookSecret, ports[0], dir, run.healthAddr, strings.Join(kueueFrameworks, ", "))
	if err := os.WriteFile(run.config, []byte(config), 0o600); err != nil {
		return nil, err
	}
	// Kueue talks to the API server directly, as the sandbox's own
	// controllers do: the proxy is for client traffic.
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

// kueueGVRs are the resources of Kueue's API the sandbox itself uses.
var (
	kueueClusterQueues   = schema.GroupVersionResource{Group: KueueGroup, Version: "v1beta2", Resource: "clusterqueues"}
	kueueClusterQueuesV1 = schema.GroupVersionResource{Group: KueueGroup, Version: "v1beta1", Resource: "clusterqueues"}
)

// awaitKueueWebhooks waits until the API server calls Kueue's webhooks: it
// learns of webhook configurations through a watch, so for a moment after
// they are created it still admits objects unchecked. A dry-run create of
// a ClusterQueue with a negative quota (which the CRD's schema admits)
// must be refused by Kueue's validating webhook, and one of a valid
// ClusterQueue in v1beta1 must pass (the API server converts it to the
// stored v1beta2 through Kueue's conversion webhook, and back).
func (sb *Sandbox) awaitKueueWebhooks(ctx context.Context, dyn dynamic.Interface) error {
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	return waitFor(ctx, sb.kueueController, "the API server to call Kueue's webhooks", func(ctx context.Context) error {
		_, err := dyn.Resource(kueueClusterQueues).Create(ctx, kueueProbe("v1beta2", "-1"), dryRun)
		switch {
		case err == nil:
			return errors.New("a ClusterQueue with a negative quota is still admitted")
		case !strings.Contains(err.Error(), "vclusterqueue.kb.io"):
			return err
		}
		_, err = dyn.Resource(kueueClusterQueuesV1).Create(ctx, kueueProbe("v1beta1", "1"), dryRun)
		return err
	})
}

// kueueProbe is a ClusterQueue of one CPU quota, for dry runs.
func kueueProbe(version, quota string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": KueueGroup + "/" + version,
		"kind":       "ClusterQueue",
		"metadata":   map[string]any{"name": "sandbox-webhook-probe"},
		"spec": map[string]any{
			"namespaceSelector": map[string]any{},
			"resourceGroups": []any{map[string]any{
				"coveredResources": []any{"cpu"},
				"flavors": []any{map[string]any{
					"name":      "probe",
					"resources": []any{map[string]any{"name": "cpu", "nominalQuota": quota}},
				}},
			}},
		},
	}}
}
