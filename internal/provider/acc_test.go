package provider

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// The acceptance tests' harness: the target they run against (the
// in-process sandbox, or an external one: acc_target_test.go), the gates
// that say what a test needs of it, the in-process provider servers, and
// the engines and faults of one test. Helpers that build configurations
// or check results are in helpers_test.go; the terraform CLI runs of
// cli_test.go.

// accTarget is what the acceptance tests (TF_ACC=1) run against.
var accTarget accTargetSpec

// accSandbox is the local sandbox the acceptance tests start when the
// target is not external: a real kube-apiserver and the emulated GKE and
// Compute APIs, with the controls (faults, host health, request counts)
// the tests that need them use. Nil against an external target.
var accSandbox *sandbox.Sandbox

func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC") != "" {
		spec, err := parseAccTarget(os.Getenv)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		accTarget = spec
		if spec.external() {
			if err := checkExternalTarget(spec); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Fprintln(os.Stderr, "acceptance target:", spec.describe())
		} else {
			accSandbox = testsupport.StartSandbox(func(ctx context.Context) (*sandbox.Sandbox, error) {
				return sandbox.Start(ctx, sandbox.Options{})
			})
		}
		if mirrorDir, err = os.MkdirTemp("", "gke-provider-mirror-"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	closeTestClients()
	if accSandbox != nil {
		testsupport.StopSandbox(accSandbox.Stop)
	}
	if mirrorDir != "" {
		_ = os.RemoveAll(mirrorDir)
	}
	os.Exit(code)
}

// checkExternalTarget reaches the external target once, within a minute,
// as the provider does: the GKE API's clusters.get for the cluster's
// endpoint and CA, then the Kubernetes API with the Google token. A
// target that does not answer fails TestMain at once, not each test.
func checkExternalTarget(spec accTargetSpec) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kube, err := accKube.get(ctx, spec)
	if err != nil {
		return fmt.Errorf("acceptance target (%s): %w", spec.describe(), err)
	}
	if _, err := kube.Core.Discovery().ServerVersion(); err != nil {
		return fmt.Errorf("acceptance target (%s): the cluster's Kubernetes API: %w", spec.describe(), err)
	}
	return nil
}

// needTarget skips a test that runs against the acceptance target unless
// TF_ACC is set, as resource.Test does. Tests that call only needTarget
// are portable: they run against the in-process sandbox and against an
// external target alike.
func needTarget(t *testing.T) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test) to run it against the local sandbox, or GKE_ACC_TARGET=external as well to run it against the target the provider's environment names")
	}
	// The test's engines stop watching the target when it ends (tests
	// run one at a time: none is shared with the next).
	t.Cleanup(closeTestClients)
}

// needSandboxControl skips, against an external target, a test that
// drives the in-process sandbox: faults, host health, request counts,
// the cluster version, its Kubernetes endpoint behind the GKE API. why
// says what it needs.
func needSandboxControl(t *testing.T, why string) {
	t.Helper()
	needTarget(t)
	if accSandbox == nil {
		t.Skipf("needs the in-process sandbox's controls (%s); %s=%s has none", why, envAccTarget, targetExternal)
	}
}

// needSandboxInventory skips, against an external target that is not a
// sandbox with its default inventory, a test whose expectations are that
// inventory's: its second block with a degraded and an unhealthy host,
// its second reservation, how many sub-blocks a block has. why says what
// it relies on.
func needSandboxInventory(t *testing.T, why string) {
	t.Helper()
	needTarget(t)
	if accTarget.external() && !accTarget.SandboxInventory {
		t.Skipf("relies on the sandbox's default inventory (%s); set %s=%s when the external target is a sandbox started with it",
			why, envAccInventory, inventorySandboxDefault)
	}
}

// accProviderConfig is the provider block of the target. Against an
// external target it names the project, location and cluster; the
// credentials and endpoints come from the environment, as they do for
// users, and are never written into a configuration.
func accProviderConfig() string {
	if !accTarget.external() {
		return accSandbox.ProviderConfig()
	}
	c := accTarget.Provider
	return fmt.Sprintf(`provider "gke" {
  project  = %q
  location = %q
  cluster  = %q
}
`, c.Project, c.Location, c.Cluster)
}

// accConfig is a configuration against the target: its provider block
// and the given resources, written with the default inventory's names,
// which it maps to the target's (accTargetSpec.translate).
func accConfig(resources string) string {
	return accProviderConfig() + "\n" + accTarget.translate(resources)
}

// inv is a name, ID or path written with the default inventory's names,
// with the target's instead: for checks of what the provider reports.
func inv(s string) string { return accTarget.translate(s) }

// accName is the name of an object a test creates: base against the
// in-process sandbox, base and the run's ID against an external target.
func accName(base string) string { return accTarget.name(base) }

// accNames replaces, in a configuration or an expected text, each of the
// names (of objects a test creates) with accName(name), wherever it
// occurs: "dra-slice" in "dra-slice-tpu" too. For names distinct enough
// that they occur nowhere else.
func accNames(names ...string) *strings.Replacer {
	var pairs []string
	for _, n := range names {
		pairs = append(pairs, n, accName(n))
	}
	return strings.NewReplacer(pairs...)
}

// accFaults sets sandbox faults for the rest of a test, and restores the
// earlier ones when the test ends, passed or failed. A PreConfig that sets
// faults calls it too, so that a failed step leaves no fault behind. Only
// tests gated by needSandboxControl call it.
func accFaults(t *testing.T, f sandbox.Faults) {
	t.Helper()
	if accSandbox == nil {
		t.Fatal("accFaults needs the in-process sandbox: gate the test with needSandboxControl")
	}
	prev := accSandbox.Faults()
	accSandbox.SetFaults(f)
	t.Cleanup(func() { accSandbox.SetFaults(prev) })
}

// accClientsConfig is the provider configuration of the target.
func accClientsConfig() clients.Config {
	if accTarget.external() {
		return accTarget.Provider
	}
	i := accSandbox.Info()
	return clients.Config{
		Project: i.Project, Location: i.Region, Cluster: i.Cluster, AccessToken: i.Token,
		ComputeEndpoint: i.GoogleURL, ContainerEndpoint: i.GoogleURL,
	}
}

// accEngine is the engine over the target, for checks that look at the
// real objects and for changes made behind Terraform's back.
func accEngine(t *testing.T) *engine.Engine {
	t.Helper()
	needTarget(t)
	set, err := clients.New(context.Background(), accClientsConfig(), clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := configure(set, engine.Options{})
	testEngines.add(c)
	e, err := c.Engine()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// accPoolID is the full name of a node pool of the target's cluster.
func accPoolID(pool string) string {
	c := accClientsConfig()
	return "projects/" + c.Project + "/locations/" + c.Location + "/clusters/" + c.Cluster + "/nodePools/" + pool
}

// accKube is the Kubernetes client of an external target, reached as the
// provider reaches it (clusters.get, then the Google token); made once.
var accKube kubeOnce

type kubeOnce struct {
	mu   sync.Mutex
	set  *clients.Set
	kube *clients.Kubernetes
}

func (k *kubeOnce) get(ctx context.Context, spec accTargetSpec) (*clients.Kubernetes, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.kube != nil {
		return k.kube, nil
	}
	if k.set == nil {
		set, err := clients.New(ctx, spec.Provider, clients.Options{})
		if err != nil {
			return nil, err
		}
		k.set = set
	}
	kube, err := k.set.Kubernetes(ctx)
	if err != nil {
		return nil, err
	}
	k.kube = kube
	return kube, nil
}

// accRESTConfig is the Kubernetes API of the target, for the tests' own
// reads and writes: the sandbox's admin access, or the cluster as the
// provider reaches it.
func accRESTConfig(t *testing.T) *rest.Config {
	t.Helper()
	if !accTarget.external() {
		return accSandbox.RESTConfig()
	}
	kube, err := accKube.get(context.Background(), accTarget)
	if err != nil {
		t.Fatal(err)
	}
	return rest.CopyConfig(kube.Config)
}

// accNodeCount counts the target's nodes that match a label selector.
func accNodeCount(t *testing.T, selector string) (int, error) {
	t.Helper()
	if !accTarget.external() {
		return accSandbox.NodesWithLabel(context.Background(), selector)
	}
	core, err := kubernetes.NewForConfig(accRESTConfig(t))
	if err != nil {
		return 0, err
	}
	list, err := core.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return 0, err
	}
	return len(list.Items), nil
}

// accKubeSlices is the target's Slice API, for objects made behind
// Terraform's back.
func accKubeSlices(t *testing.T) dynamic.ResourceInterface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(accRESTConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	return dyn.Resource(kernel.SliceGVR)
}

// testProviderFactories serve the real provider in-process.
var testProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"gke": providerserver.NewProtocol6WithError(testProvider),
}

// testProvider and probeTestProvider are the providers the in-process
// factories serve, one each for all servers and tests.
var (
	testProvider      = New("test")().(*GKEProvider)
	probeTestProvider = New("test")().(*GKEProvider)
)

// testEngines are the configurations the tests made themselves
// (accEngine).
var testEngines configuredList

type configuredList struct {
	mu   sync.Mutex
	list []*configured
}

func (l *configuredList) add(c *configured) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, c)
}

// closeTestClients closes the engines of the tests and of the in-process
// providers: they stop watching the sandbox.
func closeTestClients() {
	testEngines.mu.Lock()
	list := testEngines.list
	testEngines.list = nil
	testEngines.mu.Unlock()
	for _, c := range list {
		c.close()
	}
	testProvider.use(nil)
	probeTestProvider.use(nil)
}
