package provider

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

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

// accFaults sets sandbox faults for the rest of a test.
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
