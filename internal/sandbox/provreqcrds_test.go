package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without the ProvisioningRequest CRD the sandbox says where it looked and
// how to get it; with it, the directory holds the one CRD of
// autoscaling.x-k8s.io.
func TestProvReqCRDDir(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("GKE_SANDBOX_PROVREQ_CRDS", empty)
	if _, err := ProvReqCRDDir(); err == nil || !strings.Contains(err.Error(), empty) || !strings.Contains(err.Error(), "make sandbox-bin") {
		t.Errorf("GKE_SANDBOX_PROVREQ_CRDS of an empty directory: %v; want an error that names it and `make sandbox-bin`", err)
	}

	dir := t.TempDir()
	crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: provisioningrequests.autoscaling.x-k8s.io\n"
	if err := os.WriteFile(filepath.Join(dir, "autoscaling.x-k8s.io_provisioningrequests.yaml"), []byte(crd), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GKE_SANDBOX_PROVREQ_CRDS", dir)
	got, err := ProvReqCRDDir()
	if err != nil || got != dir {
		t.Fatalf("ProvReqCRDDir = %q, %v; want %s", got, err, dir)
	}
	crds, _, err := readCRDs(got, provreqCRDsHint)
	if err != nil || len(crds) != 1 || crds[0].GetName() != "provisioningrequests.autoscaling.x-k8s.io" {
		t.Errorf("readCRDs = %d CRDs, %v; want the ProvisioningRequest CRD", len(crds), err)
	}
}
