package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// provreqCRDsHint says how to get the ProvisioningRequest CRD; every error
// about it ends with it.
const provreqCRDsHint = "run `make sandbox-bin` (it copies the ProvisioningRequest CRD of the cluster autoscaler's API module, " +
	"from the Go module proxy, into bin/provreq-crds), or set GKE_SANDBOX_PROVREQ_CRDS to a directory that holds it"

// ProvReqCRDDir is where the sandbox takes the ProvisioningRequest CRD
// (autoscaling.x-k8s.io/v1, which Kueue's provisioning admission check
// writes and the emulated DWS answers) from: $GKE_SANDBOX_PROVREQ_CRDS,
// else provreq-crds beside the running program, else bin/provreq-crds in
// this repository. It fails, saying how to get it, when the directory has
// no CRD.
func ProvReqCRDDir() (string, error) {
	dir := os.Getenv("GKE_SANDBOX_PROVREQ_CRDS")
	if dir == "" {
		if exe, err := os.Executable(); err == nil && hasCRDs(filepath.Join(filepath.Dir(exe), "provreq-crds")) {
			dir = filepath.Join(filepath.Dir(exe), "provreq-crds")
		}
	}
	if dir == "" {
		if root, ok := repoRoot(); ok {
			dir = filepath.Join(root, "bin", "provreq-crds")
		}
	}
	if dir == "" || !hasCRDs(dir) {
		where := "bin/provreq-crds"
		if dir != "" {
			where = dir
		}
		return "", fmt.Errorf("no ProvisioningRequest CRD in %s: %s", where, provreqCRDsHint)
	}
	return dir, nil
}

// installProvReqCRDs installs the ProvisioningRequest CRD from dir. Kueue
// sets its provisioning controller up only if the API is served when it
// starts, so this comes before Kueue's start.
func (sb *Sandbox) installProvReqCRDs(ctx context.Context, dir string) error {
	crds, _, err := readCRDs(dir, provreqCRDsHint)
	if err != nil {
		return err
	}
	return sb.installCRDs(ctx, "the cluster autoscaler", dir, crds)
}
