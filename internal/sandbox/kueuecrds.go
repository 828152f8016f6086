package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// KueueGroup is the API group of Kueue's resources.
const KueueGroup = "kueue.x-k8s.io"

// kueueCRDsHint says how to get the Kueue CRDs; every error about them ends
// with it.
const kueueCRDsHint = "run `make sandbox-bin` (it copies the CRDs of the pinned Kueue release, from the Go module proxy, into bin/kueue-crds), " +
	"or set GKE_SANDBOX_KUEUE_CRDS to a directory of Kueue CRDs"

// KueueCRDDir is where the sandbox takes Kueue's CRDs from: opts.KueueCRDs,
// else $GKE_SANDBOX_KUEUE_CRDS, else kueue-crds beside the running program
// (bin/gke-sandbox beside bin/kueue-crds), else bin/kueue-crds in this
// repository. It fails, saying how to get them, when the directory has no
// CRD: Kueue is part of the platform the sandbox stands in for, so a
// sandbox without it is not offered.
func KueueCRDDir(opts Options) (string, error) {
	dir := firstNonEmpty(opts.KueueCRDs, os.Getenv("GKE_SANDBOX_KUEUE_CRDS"))
	if dir == "" {
		if exe, err := os.Executable(); err == nil && hasCRDs(filepath.Join(filepath.Dir(exe), "kueue-crds")) {
			dir = filepath.Join(filepath.Dir(exe), "kueue-crds")
		}
	}
	if dir == "" {
		if root, ok := repoRoot(); ok {
			dir = filepath.Join(root, "bin", "kueue-crds")
		}
	}
	if dir == "" || !hasCRDs(dir) {
		where := "bin/kueue-crds"
		if dir != "" {
			where = dir
		}
		return "", fmt.Errorf("no Kueue CRDs in %s: %s", where, kueueCRDsHint)
	}
	return dir, nil
}

// readKueueCRDs reads Kueue's CRDs in dir and the version beside them.
func readKueueCRDs(dir string) (crds []*unstructured.Unstructured, version string, err error) {
	return readCRDs(dir, kueueCRDsHint)
}

// installKueueCRDs installs Kueue's CRDs from dir and records the version.
// With conversions (Kueue runs: kueue_webhooks.go), the CRDs they name are
// installed with them.
func (sb *Sandbox) installKueueCRDs(ctx context.Context, dir string, conversions map[string]map[string]any) error {
	crds, version, err := readKueueCRDs(dir)
	if err != nil {
		return err
	}
	converted := 0
	for _, crd := range crds {
		if conv, ok := conversions[crd.GetName()]; ok {
			if err := unstructured.SetNestedMap(crd.Object, conv, "spec", "conversion"); err != nil {
				return err
			}
			converted++
		}
	}
	if converted != len(conversions) {
		return fmt.Errorf("the conversion webhooks of Kueue name %d CRDs, of which %d are in %s: %s", len(conversions), converted, dir, kueueCRDsHint)
	}
	if err := sb.installCRDs(ctx, "Kueue", dir, crds); err != nil {
		return err
	}
	sb.KueueVersion = version
	return nil
}
