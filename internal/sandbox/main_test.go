package sandbox

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
)

// testSandbox is started once for the package's tests. Tests that change
// faults restore them with t.Cleanup; tests that use sub-blocks free them.
var testSandbox *Sandbox

func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC") == "" {
		// Without TF_ACC only the tests that need no sandbox run
		// (needSandbox skips the others); `make test` sets it.
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	sb, err := Start(ctx, Options{})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the sandbox:", err)
		os.Exit(1)
	}
	testSandbox = sb
	code := m.Run()
	sb.Stop()
	os.Exit(code)
}

// needSandbox skips a test that needs the running sandbox unless TF_ACC is
// set, as terraform-plugin-testing does for acceptance tests.
func needSandbox(t *testing.T) {
	t.Helper()
	if testSandbox == nil {
		t.Skip("needs the local sandbox (a real kube-apiserver and etcd): set TF_ACC=1, as `make test` does")
	}
}

// withFaults sets faults for one test and restores the previous ones.
func withFaults(t *testing.T, f Faults) {
	t.Helper()
	prev := testSandbox.Faults()
	testSandbox.SetFaults(f)
	t.Cleanup(func() { testSandbox.SetFaults(prev) })
}

// testKube is a Kubernetes client of the test sandbox (through its proxy).
func testKube(t *testing.T) kubernetes.Interface {
	t.Helper()
	kube, err := kubernetes.NewForConfig(testSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return kube
}
