package provider

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"k8s.io/client-go/dynamic"
	"k8s.io/klog/v2"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// The acceptance tests' harness: the sandbox they run against, the
// in-process provider servers, and the engines and faults of one test.
// Helpers that build configurations or check results are in
// helpers_test.go; the terraform CLI runs of cli_test.go.

// accSandbox is the local sandbox the acceptance tests (TF_ACC=1) run
// against: a real kube-apiserver and the emulated GKE and Compute APIs.
var accSandbox *sandbox.Sandbox

func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC") != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		sb, err := sandbox.Start(ctx, sandbox.Options{})
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "acceptance tests need the local sandbox (make sandbox-bin):", err)
			os.Exit(1)
		}
		accSandbox = sb
		if mirrorDir, err = os.MkdirTemp("", "gke-provider-mirror-"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	closeTestClients()
	if accSandbox != nil {
		// Watches stopped a moment ago may not have ended yet: once the
		// sandbox stops, client-go would log their reconnects, noise
		// after the tests' own output, which is what CI shows.
		klog.LogToStderr(false)
		klog.SetOutput(io.Discard)
		accSandbox.Stop()
		_ = os.RemoveAll(mirrorDir)
	}
	os.Exit(code)
}

// needSandbox skips a test that drives the sandbox unless TF_ACC is set,
// as resource.Test does.
func needSandbox(t *testing.T) {
	t.Helper()
	if accSandbox == nil {
		t.Skip("acceptance test: set TF_ACC=1 (make test) to run it against the local sandbox")
	}
	// The test's engines stop watching the sandbox when it ends (tests
	// run one at a time: none is shared with the next).
	t.Cleanup(closeTestClients)
}

// accConfig is a configuration against the sandbox: its provider block
// and the given resources.
func accConfig(resources string) string {
	return accSandbox.ProviderConfig() + "\n" + resources
}

// accFaults sets sandbox faults for the rest of a test, and restores the
// earlier ones when the test ends, passed or failed. A PreConfig that sets
// faults calls it too, so that a failed step leaves no fault behind.
func accFaults(t *testing.T, f sandbox.Faults) {
	t.Helper()
	prev := accSandbox.Faults()
	accSandbox.SetFaults(f)
	t.Cleanup(func() { accSandbox.SetFaults(prev) })
}

// accEngine is the engine over the sandbox, for checks that look at the
// real objects and for changes made behind Terraform's back.
func accEngine(t *testing.T) *engine.Engine {
	t.Helper()
	needSandbox(t)
	i := accSandbox.Info()
	set, err := clients.New(context.Background(), clients.Config{
		Project: i.Project, Location: i.Region, Cluster: i.Cluster, AccessToken: i.Token,
		ComputeEndpoint: i.GoogleURL, ContainerEndpoint: i.GoogleURL,
	})
	if err != nil {
		t.Fatal(err)
	}
	testClients.add(set)
	e, err := set.Engine()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// accKubeSlices is the sandbox's Slice API, for objects made behind
// Terraform's back.
func accKubeSlices(t *testing.T) dynamic.ResourceInterface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(accSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return dyn.Resource(engine.SliceGVR)
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

// testClients are client sets the tests made themselves (accEngine).
var testClients setList

type setList struct {
	mu   sync.Mutex
	sets []*clients.Set
}

func (l *setList) add(s *clients.Set) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sets = append(l.sets, s)
}

// closeTestClients closes the client sets of the tests and of the
// in-process providers: their engines stop watching the sandbox.
func closeTestClients() {
	testClients.mu.Lock()
	sets := testClients.sets
	testClients.sets = nil
	testClients.mu.Unlock()
	for _, s := range sets {
		s.Close()
	}
	testProvider.useClients(nil)
	probeTestProvider.useClients(nil)
}
